internal import CShareLinux
import Foundation
import Synchronization
public import TypeRegistry

#if canImport(Glibc)
    import Glibc
#endif

/// The type registry a receiver (or a command) works with: built-in types, the installed
/// shared-mime-info database and the registered applications.
///
/// The shared-mime-info database is read once per process, from each data directory's compiled
/// `mime.cache` (the file GLib reads; about 150 KB) unless it is missing, damaged or older than
/// that directory's package XML, which is then read instead (a few MB). The registry is rebuilt
/// only when the applications folder changed since the last call (a directory listing and a
/// `stat` per registration, well under a millisecond), so a receiver sees `share types register`
/// at its next transfer without restarting.
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
        // Lowest precedence first, so that higher directories add to and override lower ones.
        let loaded = SharedMimeInfo.combining(directories.reversed().compactMap(Self.directoryDatabase))
        databases.withLock { $0[key] = loaded }
        return loaded
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
