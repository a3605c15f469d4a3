public import ShareDocuments

/// docs/PROTOCOL.md §4 and §7's path rules restated on bytes and Unicode scalars, as the kernel sees
/// a path: components are what lies between `/` bytes. Written apart from `PathRules` so the two can
/// be compared.
public enum BytePathOracle {
    /// The first rule `path` breaks, in words, or nil when the protocol allows it.
    public static func problem(in path: String, limits: ManifestLimits = .protocolDefault) -> String? {
        let bytes = Array(path.utf8)
        if bytes.isEmpty { return "empty" }
        if bytes.count > limits.maxPathBytes { return "longer than \(limits.maxPathBytes) bytes" }
        if bytes[0] == UInt8(ascii: "/") { return "absolute" }
        for scalar in path.unicodeScalars {
            let value = scalar.value
            if value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x5C {
                return "contains U+\(String(value, radix: 16))"
            }
        }
        let components = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if components.count > limits.maxDepth { return "\(components.count) components deep" }
        for component in components {
            if component.isEmpty { return "an empty component" }
            if component.elementsEqual([0x2E]) { return "a '.' component" }
            if component.elementsEqual([0x2E, 0x2E]) { return "a '..' component" }
            if component.count > limits.maxComponentBytes { return "a component of \(component.count) bytes" }
            let scalars = String(decoding: component, as: UTF8.self).unicodeScalars
            let unseen = scalars.allSatisfy {
                $0 == "." || $0.properties.isWhitespace || $0.properties.isDefaultIgnorableCodePoint
            }
            if unseen { return "a component of only dots, white space and invisible characters" }
            if isHomeFolder(Array(component)) { return "a component a shell reads as a home folder" }
        }
        if components[0].starts(with: Array(".share-".utf8)) { return "a reserved top-level name" }
        return nil
    }

    /// `~`, `~` and a user name (`[A-Za-z_][A-Za-z0-9_-]*`), or a folder-stack form (`~+`, `~-`,
    /// `~N`, `~+N`, `~-N`), on bytes.
    static func isHomeFolder(_ bytes: [UInt8]) -> Bool {
        guard bytes.first == 0x7E else { return false }
        let rest = bytes.dropFirst()
        let digits = Array("0123456789".utf8)
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_".utf8)
        guard let first = rest.first else { return true }
        if first == 0x2B || first == 0x2D { return rest.dropFirst().allSatisfy(digits.contains) }
        if digits.contains(first) { return rest.allSatisfy(digits.contains) }
        return letters.contains(first) && rest.allSatisfy { letters.contains($0) || digits.contains($0) || $0 == 0x2D }
    }

    /// The components of `path` between `/` bytes.
    public static func components(of path: String) -> [[UInt8]] {
        Array(path.utf8).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Array.init)
    }
}
