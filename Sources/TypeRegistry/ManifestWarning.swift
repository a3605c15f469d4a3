/// A problem found in a manifest that did not stop it from loading.
///
/// The location names the offending value the way a reader finds it in the plist, for example
/// `UTExportedTypeDeclarations[2].UTTypeConformsTo[0]`.
public struct ManifestWarning: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Where the value is: top-level key, array indices in brackets, nested keys after dots.
    public let location: String
    /// What is wrong and what the loader did about it.
    public let message: String

    /// Creates a warning.
    public init(location: String, message: String) {
        self.location = location
        self.message = message
    }

    /// `location: message`.
    public var description: String { "\(location): \(message)" }
}
