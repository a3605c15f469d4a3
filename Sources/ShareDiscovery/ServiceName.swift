/// Checks service (device) names and types before they are handed to Avahi.
public enum ServiceName {
    /// The longest DNS label: a service instance name is one label.
    public static let maxLength = 63

    /// Checks that a device name can be published as a DNS-SD instance name.
    ///
    /// - Parameter name: the name the user chose, e.g. "desk".
    /// - Throws: ``DiscoveryError/invalidServiceName(_:problem:)`` when the name is empty,
    ///   longer than 63 bytes of UTF-8, or holds control characters.
    public static func validate(_ name: String) throws(DiscoveryError) {
        let length = name.utf8.count
        guard length > 0 else { throw .invalidServiceName(name, problem: "it is empty") }
        guard length <= maxLength else {
            throw .invalidServiceName(name, problem: "it is \(length) bytes of UTF-8, more than \(maxLength)")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidServiceName(name, problem: "it contains control characters")
        }
    }
}
