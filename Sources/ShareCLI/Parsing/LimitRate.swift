import ShareKit

/// `--limit-rate RATE` of `share send` and `share receive`: a rate as the `rate-limit` setting takes
/// it (``ByteRate``: `500k`, `10M`, `2MiB`, `none`), which it overrides.
enum LimitRate {
    /// The rate given (0: `none`, no limit even if the setting has one), or nil without the option.
    static func parse(_ parsed: ParsedArguments) throws(UsageError) -> UInt64? {
        guard let text = parsed.value("limit-rate") else { return nil }
        guard let rate = ByteRate.parse(text), rate == 0 || rate >= ByteRate.minimum else {
            throw parsed.usageError(
                "The value '\(text)' is invalid for '--limit-rate'; expected bytes per second of at least "
                    + "\(ByteRate.format(ByteRate.minimum)), e.g. 500k, 10M or 2MiB, or none")
        }
        return rate
    }

    /// The limit in effect: the option's, else the setting's; nil for none.
    static func effective(_ option: UInt64?, setting: UInt64?) -> UInt64? {
        (option ?? setting).flatMap { $0 > 0 ? $0 : nil }
    }
}
