/// Encodes and decodes DNS-SD TXT records (RFC 6763 §6): a list of `key=value` strings.
///
/// Pure Swift, no Avahi: the Avahi layer only moves the byte strings in and out.
///
/// Decoding is lenient and never traps, because the bytes come from any host on the LAN:
/// - keys are compared case-insensitively and returned lowercased;
/// - an entry without `=` is a boolean attribute and decodes to the empty value;
/// - only the first occurrence of a key counts (RFC 6763 §6.4);
/// - entries with an empty or non-printable key, a value that is not UTF-8, or more than
///   ``maxEntryLength`` bytes are ignored.
///
/// Encoding is strict: it refuses what a peer could not decode.
public enum TXTRecord {
    /// The longest TXT string DNS allows: its length travels in one byte.
    public static let maxEntryLength = 255

    /// Turns attributes into TXT strings, sorted by key so a record is always encoded the same way.
    ///
    /// - Parameter attributes: keys of printable US-ASCII without `=`, unique without regard
    ///   to case; values of any UTF-8 text.
    /// - Returns: one `key=value` byte string per attribute.
    /// - Throws: ``DiscoveryError/invalidTXTRecord(key:problem:)`` for an empty key, a key with
    ///   `=` or a non-printable character, a duplicate key, or an entry over 255 bytes.
    public static func encode(_ attributes: [String: String]) throws(DiscoveryError) -> [[UInt8]] {
        var seen = Set<String>()
        var entries: [[UInt8]] = []
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
            let keyBytes = Array(key.utf8)
            guard !keyBytes.isEmpty else {
                throw .invalidTXTRecord(key: key, problem: "the key is empty")
            }
            guard keyBytes.allSatisfy(isKeyByte) else {
                throw .invalidTXTRecord(
                    key: key, problem: "a key may hold only printable ASCII characters other than '='")
            }
            guard seen.insert(key.lowercased()).inserted else {
                throw .invalidTXTRecord(key: key, problem: "the key appears twice (keys ignore case)")
            }
            let entry = keyBytes + [UInt8(ascii: "=")] + Array(value.utf8)
            guard entry.count <= maxEntryLength else {
                throw .invalidTXTRecord(
                    key: key, problem: "'key=value' is \(entry.count) bytes, more than \(maxEntryLength)")
            }
            entries.append(entry)
        }
        return entries
    }

    /// Turns TXT strings from the network into attributes, skipping whatever is malformed.
    ///
    /// - Parameter entries: the record's strings, in the order they were received.
    /// - Returns: lowercased keys mapped to their values (`""` for a key without `=`).
    public static func decode(_ entries: [[UInt8]]) -> [String: String] {
        var attributes: [String: String] = [:]
        for entry in entries where !entry.isEmpty && entry.count <= maxEntryLength {
            let separator = entry.firstIndex(of: UInt8(ascii: "="))
            let keyBytes = entry[..<(separator ?? entry.endIndex)]
            guard !keyBytes.isEmpty, keyBytes.allSatisfy(isKeyByte) else { continue }
            let key = String(decoding: keyBytes, as: UTF8.self).lowercased()
            guard attributes[key] == nil else { continue }
            guard let separator else {
                attributes[key] = ""
                continue
            }
            guard let value = String(validating: entry[(separator + 1)...], as: UTF8.self) else { continue }
            attributes[key] = value
        }
        return attributes
    }

    /// Printable US-ASCII except `=` (RFC 6763 §6.4).
    private static func isKeyByte(_ byte: UInt8) -> Bool {
        (0x20...0x7E).contains(byte) && byte != UInt8(ascii: "=")
    }
}
