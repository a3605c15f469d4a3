import Foundation
import Synchronization
public import TypeRegistry

/// The type registry a receiver (or a command) works with: built-in types, the installed
/// shared-mime-info database and the registered applications.
///
/// The shared-mime-info database is read once per process (a few MB of XML: about 60 ms in a
/// release build, 0.5 s in a debug build) and kept; the registry is rebuilt from it only when the
/// applications folder changed since the last call (a directory listing and a `stat` per
/// registration, well under a millisecond), so a receiver sees `share types register` at its
/// next transfer without restarting.
public final class RegistryProvider: Sendable {
    private enum Source: Sendable {
        case fixed(TypeRegistry)
        case installed(ApplicationStore, environment: [String: String])
    }

    private let source: Source
    private let cache = Mutex<(key: String, registry: TypeRegistry, problems: [String])?>(nil)
    private static let databases = Mutex<[String: SharedMimeInfo]>([:])

    /// A provider that always answers `registry` (for tests and embedding).
    public init(fixed registry: TypeRegistry) {
        source = .fixed(registry)
    }

    /// A provider for the registered applications of `store`, with the shared-mime-info database
    /// of the XDG data directories named in `environment`.
    public init(applications store: ApplicationStore, environment: [String: String]) {
        source = .installed(store, environment: environment)
    }

    /// The registry as of now.
    public func current() -> TypeRegistry { currentWithProblems().registry }

    /// The registry as of now and the registrations that could not be read.
    public func currentWithProblems() -> (registry: TypeRegistry, problems: [String]) {
        switch source {
        case .fixed(let registry):
            return (registry, [])
        case .installed(let store, let environment):
            let key = store.stateKey()
            if let cached = cache.withLock({ $0 }), cached.key == key { return (cached.registry, cached.problems) }
            let database = Self.database(environment: environment)
            let (applications, problems) = store.load()
            let registry = TypeRegistry(sharedMimeInfo: database, applications: applications)
            cache.withLock { $0 = (key, registry, problems) }
            return (registry, problems)
        }
    }

    /// The shared-mime-info database of `environment`'s XDG directories, read once per process.
    static func database(environment: [String: String]) -> SharedMimeInfo {
        let directories = SharedMimeInfo.defaultPackageDirectories(environment: environment)
        let key = directories.joined(separator: ":")
        if let known = databases.withLock({ $0[key] }) { return known }
        let loaded = SharedMimeInfo.load(packageDirectories: directories)
        databases.withLock { $0[key] = loaded }
        return loaded
    }
}
