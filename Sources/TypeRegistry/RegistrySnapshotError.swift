/// Why a registry snapshot cannot be used (see ``TypeRegistry/init(snapshot:key:applications:)``);
/// the caller then builds the registry from its sources.
public enum RegistrySnapshotError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not a registry snapshot.
    case notASnapshot
    /// A snapshot of another format version (written by another version of share).
    case unsupportedVersion(Int)
    /// The bytes are cut short or changed since they were written.
    case damaged(String)
    /// A snapshot of other sources (the database or the registrations changed since).
    case otherKey

    public var description: String {
        switch self {
        case .notASnapshot: "not a type registry snapshot"
        case .unsupportedVersion(let version):
            "a type registry snapshot of format \(version), which share does not read"
        case .damaged(let problem): "the type registry snapshot is damaged (\(problem))"
        case .otherKey: "the type registry snapshot was made from other sources"
        }
    }
}
