#if canImport(Glibc)
import Glibc
#endif

/// The name this machine shows to others.
public enum DeviceName {
    /// The explicit name if given, else the configured one, else the host name.
    public static func resolve(explicit: String?, settings: NodeSettings) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let configured = settings.name, !configured.isEmpty { return configured }
        return hostName
    }

    /// The system's host name (without a domain).
    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "share" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.split(separator: ".").first.map(String.init) ?? "share"
    }

    /// A name as a user typed it, without the spaces around it (which would make it look like another
    /// name); `trimmed` says whether there were any.
    public static func cleaned(_ name: String) -> (name: String, trimmed: Bool) {
        // Unicode's White_Space only: an invisible character such as U+200B stays, and is refused
        // or shown escaped like any other.
        var scalars = Substring(name).unicodeScalars
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        let cleaned = String(scalars)
        return (cleaned, cleaned != name)
    }

    /// Checks a name a user wants to use; returns the problem, if any.
    public static func problem(with name: String) -> String? {
        if name.trimming(" ").isEmpty { return "the name is empty" }
        if name.first?.isWhitespace == true || name.last?.isWhitespace == true {
            return "the name starts or ends with a space (it would look like another name)"
        }
        if name.utf8.count > 63 { return "the name is \(name.utf8.count) bytes long; DNS-SD allows 63" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "the name contains control characters"
        }
        return nil
    }
}

extension String {
    func trimming(_ character: Character) -> Substring {
        var text = Substring(self)
        while text.first == character { text = text.dropFirst() }
        while text.last == character { text = text.dropLast() }
        return text
    }
}
