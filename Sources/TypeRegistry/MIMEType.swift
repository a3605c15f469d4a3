/// Helpers for MIME type strings.
enum MIMEType {
    /// The MIME type lower-cased, trimmed and without parameters (`text/plain; charset=utf-8` →
    /// `text/plain`); `nil` when it is not of the form `type/subtype`.
    static func normalize(_ text: String) -> String? {
        // Fast path: already lower-case `type/subtype` of letters, digits and `+-._` (nearly always).
        var slash = -1
        var count = 0
        var plain = true
        for byte in text.utf8 {
            switch byte {
            case 0x61...0x7A, 0x30...0x39, 0x2B, 0x2D, 0x2E, 0x5F: break
            case 0x2F where slash < 0: slash = count
            default: plain = false
            }
            if !plain { break }
            count += 1
        }
        if plain && slash > 0 && slash < count - 1 { return text }
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
