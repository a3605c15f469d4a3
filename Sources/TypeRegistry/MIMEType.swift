/// Helpers for MIME type strings.
enum MIMEType {
    /// The MIME type lower-cased, trimmed and without parameters (`text/plain; charset=utf-8` →
    /// `text/plain`); `nil` when it is not of the form `type/subtype`.
    static func normalize(_ text: String) -> String? {
        var value = Substring(text)
        if let semicolon = value.firstIndex(of: ";") { value = value[..<semicolon] }
        let trimmed = String(value).trimmingTypeWhitespace().lowercased()
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        for scalar in trimmed.unicodeScalars {
            if scalar.properties.isWhitespace || scalar.value < 0x21 || scalar.value > 0x7E { return nil }
            if "()<>@,;:\\\"[]?=".unicodeScalars.contains(scalar) { return nil }
        }
        return trimmed
    }

    /// The media type (`image` of `image/png`).
    static func mediaType(_ mime: String) -> Substring {
        mime.split(separator: "/", maxSplits: 1).first ?? Substring(mime)
    }

    /// The media type and subtype (`image`, `png`); the subtype is empty when there is no slash.
    static func split(_ mime: String) -> (media: Substring, subtype: Substring) {
        guard let slash = mime.firstIndex(of: "/") else { return (Substring(mime), "") }
        return (mime[..<slash], mime[mime.index(after: slash)...])
    }
}
