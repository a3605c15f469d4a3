/// Why an application could not be registered or unregistered.
public enum ApplicationStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The manifest cannot be read or is not valid for registration (the message says what to fix).
    case invalidManifest(String)
    /// No application with this identifier is registered.
    case notRegistered(String)
    /// The registration could not be written or removed.
    case storageFailed(path: String, reason: String)

    /// A sentence for the user.
    public var description: String {
        switch self {
        case .invalidManifest(let message): message
        case .notRegistered(let id):
            "no application '\(id)' is registered; 'share types list' shows the registered applications"
        case .storageFailed(let path, let reason): "cannot write '\(path)': \(reason)"
        }
    }
}
