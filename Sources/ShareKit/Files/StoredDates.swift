import Foundation

/// How share's metadata files (inbox entries, kept transfers) store dates: ISO 8601 to the
/// millisecond, so that "oldest first" holds for two records written within one second; dates in
/// whole seconds, as older files have them, still read.
enum StoredDates {
    static var encoding: JSONEncoder.DateEncodingStrategy {
        .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(format(withFraction: true).string(from: date))
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

    /// An ISO 8601 timestamp format, with or without fractional seconds.
    private static func format(withFraction: Bool) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        if withFraction { formatter.formatOptions.insert(.withFractionalSeconds) }
        return formatter
    }
}
