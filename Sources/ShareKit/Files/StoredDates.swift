import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// How share's metadata files (inbox entries, kept transfers) store dates: ISO 8601 to the
/// millisecond, so that "oldest first" holds for two records written within one second; dates in
/// whole seconds, as older files have them, still read.
enum StoredDates {
    static var encoding: JSONEncoder.DateEncodingStrategy {
        .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(text(of: date))
        }
    }

    static var decoding: JSONDecoder.DateDecodingStrategy {
        .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = format(withFraction: true).date(from: text) ?? format(withFraction: false).date(from: text)
            else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a date: \(text)"))
            }
            return date
        }
    }

    /// `date` in UTC to the nearest millisecond, as `ISO8601DateFormatter` with fractional seconds writes it
    /// (`2026-12-02T11:43:26.472Z`), but computed with `gmtime_r`.
    ///
    /// The first `ISO8601DateFormatter` of a process loads ICU's time zone data (~20 ms here), and the
    /// receiver writes its first date (the kept transfer's `.share-partial.json`) between accepting an
    /// offer and telling the sender so: every transfer waited for it (docs/PERFORMANCE.md). Years
    /// outside 1-9999 still go through the formatter.
    static func text(of date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        // Years 1 to 9999 (whole milliseconds since 1970).
        guard milliseconds >= -62_135_596_800_000, milliseconds < 253_402_300_800_000 else {
            return format(withFraction: true).string(from: date)
        }
        let seconds = (milliseconds / 1000).rounded(.down)
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return format(withFraction: true).string(from: date) }
        var text = ""
        text.reserveCapacity(24)
        // Zero-padded to `digits` (every value here is 0 or more and has at most that many digits).
        func append(_ value: Int32, digits: Int) {
            let decimal = String(value)
            text += String(repeating: "0", count: max(0, digits - decimal.count)) + decimal
        }
        append(parts.tm_year + 1900, digits: 4)
        text += "-"
        append(parts.tm_mon + 1, digits: 2)
        text += "-"
        append(parts.tm_mday, digits: 2)
        text += "T"
        append(parts.tm_hour, digits: 2)
        text += ":"
        append(parts.tm_min, digits: 2)
        text += ":"
        append(parts.tm_sec, digits: 2)
        text += "."
        append(Int32(milliseconds - seconds * 1000), digits: 3)
        text += "Z"
        return text
    }

    /// An ISO 8601 timestamp format, with or without fractional seconds.
    private static func format(withFraction: Bool) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        if withFraction { formatter.formatOptions.insert(.withFractionalSeconds) }
        return formatter
    }
}
