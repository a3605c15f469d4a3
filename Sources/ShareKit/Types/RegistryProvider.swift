import Foundation
import Synchronization
public import TypeRegistry
import ShareSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The type registry a receiver (or a command) works with: built-in types, the installed
/// shared-mime-info database and the registered applications.
///
/// The shared-mime-info database comes from each data directory's compiled `mime.cache` (the file
/// GLib reads; about 150 KB) unless it is missing, damaged or older than that directory's package
/// XML, which is then read instead (a few MB). Merging it with the built-in and registered types
/// takes tens of milliseconds, so the result is kept in the user's snapshot
/// (``RegistrySnapshotFile``), which the next process reads in place for as long as none of the
/// sources changed. Each call compares the sources' state (a `stat` of each `mime.cache`, package
/// folder and file, and of each registration: well under a millisecond) with what the registry
/// was made from, so a receiver sees `share types register` or `update-mime-database` at its next
/// transfer without restarting.
public final class RegistryProvider: Sendable {
    private enum Source: Sendable {
        case fixed(TypeRegistry)
        case installed(ApplicationStore, environment: [String: String])
    }

    private let source: Source
    private let cache = Mutex<(key: String, registry: TypeRegistry, problems: [String])?>(nil)
    /// Each set of data directories' database, with the state of the files it was read from.
    private static let databases = Mutex<[String: (state: String, database: SharedMimeInfo)]>([:])

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
            // The state of every source, taken before any is read: a change while reading makes
            // the next call read again instead of keeping a registry under a state it does not have.
            let directories = SharedMimeInfo.defaultPackageDirectories(environment: environment)
            let databaseState = Self.state(ofDirectories: directories)
            let applicationsState = store.stateKey()
            let key = Self.sourcesKey(databaseState: databaseState, applicationsState: applicationsState)
            if let cached = cache.withLock({ $0 }), cached.key == key { return (cached.registry, cached.problems) }
            let (applications, problems) = store.load()
            let snapshot = RegistrySnapshotFile(environment: environment)
            let snapshotKey = snapshot?.key(sources: key)
            let registry: TypeRegistry
            if let snapshot, let snapshotKey, store.stateKey() == applicationsState,
                let known = snapshot.registry(key: snapshotKey, applications: applications)
            {
                registry = known
            } else {
                let database = Self.database(directories: directories, state: databaseState)
                registry = TypeRegistry(sharedMimeInfo: database, applications: applications)
                if let snapshot, let snapshotKey, store.stateKey() == applicationsState {
                    snapshot.save(registry, key: snapshotKey)
                }
            }
            cache.withLock { $0 = (key, registry, problems) }
            return (registry, problems)
        }
    }

    /// The shared-mime-info database of the given package directories, read again only when the
    /// state of their files changed.
    static func database(directories: [String], state: String) -> SharedMimeInfo {
        let key = directories.joined(separator: ":")
        if let known = databases.withLock({ $0[key] }), known.state == state { return known.database }
        // Lowest precedence first, so that higher directories add to and override lower ones.
        let loaded = SharedMimeInfo.combining(directories.reversed().compactMap(Self.directoryDatabase))
        databases.withLock { $0[key] = (state, loaded) }
        return loaded
    }

    /// What a registry is made from: the database's state and the registrations' state.
    static func sourcesKey(databaseState: String, applicationsState: String) -> String {
        databaseState + "\napplications " + applicationsState
    }

    /// What a database is read from, as text that changes when any of it changes: for each
    /// package directory, its `mime.cache`, the folder itself and each `*.xml` file in it.
    static func state(ofDirectories directories: [String]) -> String {
        func identity(_ path: String) -> String {
            var info = stat()
            guard stat(path, &info) == 0 else { return "-" }
            return "\(info.st_mode & S_IFMT):\(info.st_dev):\(info.st_ino):\(info.st_size):"
                + "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec):\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
        }
        var lines: [String] = []
        for packages in directories {
            let mime = String(packages.dropLast("/packages".count))
            var line = "\(packages) cache \(identity(mime + "/mime.cache")) folder \(identity(packages))"
            let fd = open(packages, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if fd >= 0 {
                for name in POSIX.directoryNames(consuming: fd) ?? [] where name.hasSuffix(".xml") {
                    line += " \(name) \(identity(packages + "/" + name))"
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// The description shared-mime-info gives a MIME type (its untranslated comment), read from the
    /// type file `update-mime-database` writes in each data directory (`…/mime/image/png.xml`),
    /// highest precedence first; `mime.cache` holds no comments.
    /// - Parameters:
    ///   - mimeType: a canonical MIME type.
    ///   - environment: the process environment (`XDG_DATA_HOME`, `XDG_DATA_DIRS`, `HOME`).
    public static func comment(forMIMEType mimeType: String, environment: [String: String]) -> String? {
        guard !mimeType.contains(".."), mimeType.split(separator: "/").count == 2 else { return nil }
        for packages in SharedMimeInfo.defaultPackageDirectories(environment: environment) {
            let path = String(packages.dropLast("packages".count)) + mimeType + ".xml"
            if let data = FileManager.default.contents(atPath: path),
                let comment = SharedMimeInfo.comment(inTypeFile: [UInt8](data))
            {
                return comment
            }
        }
        return nil
    }

    /// One `…/mime` directory's database: its `mime.cache` when it is usable and not older than
    /// its package XML, else the package XML; `nil` when the directory has neither.
    /// - Parameter packages: the directory's `packages` folder.
    static func directoryDatabase(packages: String) -> SharedMimeInfo? {
        let mime = String(packages.dropLast("/packages".count))
        let cachePath = mime + "/mime.cache"
        var cacheInfo = stat()
        let hasCache = stat(cachePath, &cacheInfo) == 0 && (cacheInfo.st_mode & S_IFMT) == S_IFREG
        var directoryInfo = stat()
        let hasPackages = stat(packages, &directoryInfo) == 0 && (directoryInfo.st_mode & S_IFMT) == S_IFDIR
        var problem: String?
        if hasCache, !(hasPackages && isNewer(packages, directoryInfo, than: cacheInfo)) {
            if cacheInfo.st_size <= SharedMimeInfo.maximumFileSize,
                let data = FileManager.default.contents(atPath: cachePath)
            {
                do {
                    return try SharedMimeInfo.parse(cache: [UInt8](data), source: cachePath)
                } catch {
                    problem = "\(error); its package XML is read instead"
                }
            } else {
                problem = "\(cachePath): cannot be read; its package XML is read instead"
            }
        }
        guard hasPackages else { return nil }
        var database = SharedMimeInfo.load(packageDirectories: [packages])
        if let problem { database.addWarning(problem) }
        return database
    }

    /// Whether the packages folder or one of its XML files changed after the cache was written.
    private static func isNewer(_ packages: String, _ directoryInfo: stat, than cacheInfo: stat) -> Bool {
        func later(_ a: timespec, _ b: timespec) -> Bool { (a.tv_sec, a.tv_nsec) > (b.tv_sec, b.tv_nsec) }
        if later(directoryInfo.st_mtim, cacheInfo.st_mtim) { return true }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: packages)) ?? []
        for name in names where name.hasSuffix(".xml") {
            var info = stat()
            if stat(packages + "/" + name, &info) == 0, later(info.st_mtim, cacheInfo.st_mtim) { return true }
        }
        return false
    }
}
