import Foundation
import ShareTestSupport
import Testing
import TypeRegistry

@testable import ShareKit

#if canImport(Glibc)
    import Glibc
#endif

/// Where a process's shared-mime-info database comes from: each data directory's `mime.cache`,
/// unless it is missing, damaged or older than that directory's package XML.
@Suite struct TypeDatabaseTests {
    static let beer = """
        <?xml version="1.0" encoding="UTF-8"?>
        <mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
          <mime-type type="application/x-beertracker"><comment>Beer list</comment><glob pattern="*.btkr"/></mime-type>
        </mime-info>
        """

    /// A user data directory with the package `beer.xml` and, optionally, a `mime.cache`.
    private func registry(_ dir: TemporaryDirectory, _ name: String, cache: [UInt8]?, cacheIsOlder: Bool = false)
        -> TypeRegistry
    {
        let mime = dir.at("\(name)/mime")
        FileTree.makeFolder(mime + "/packages")
        FileTree.writeText(mime + "/packages/beer.xml", Self.beer)
        if let cache {
            _ = FileManager.default.createFile(atPath: mime + "/mime.cache", contents: Data(cache))
            let stamp = cacheIsOlder ? Date(timeIntervalSinceNow: -3600) : Date(timeIntervalSinceNow: 3600)
            try? FileManager.default.setAttributes([.modificationDate: stamp], ofItemAtPath: mime + "/mime.cache")
        }
        let environment = ["HOME": dir.at(name), "XDG_DATA_HOME": dir.at(name), "XDG_DATA_DIRS": "/usr/share"]
        let store = ApplicationStore(directory: dir.at("\(name)/apps"))
        return RegistryProvider(applications: store, environment: environment).current()
    }

    /// The environment of a user whose data directory `dir/data` has the package `beer.xml` and
    /// whose cache folder is `dir/cache`.
    private func beerUser(_ dir: TemporaryDirectory) -> [String: String] {
        let packages = dir.at("data/mime/packages")
        FileTree.makeFolder(packages)
        FileTree.writeText(packages + "/beer.xml", Self.beer)
        return [
            "HOME": dir.at("home"), "XDG_DATA_HOME": dir.at("data"), "XDG_DATA_DIRS": "/usr/share",
            "XDG_CACHE_HOME": dir.at("cache"),
        ]
    }

    private func knowsBeer(_ registry: TypeRegistry) -> Bool {
        registry.resolve(ResolutionRequest(fileName: "stout.btkr")).mimeType == "application/x-beertracker"
    }

    @Test func eachDirectoryIsReadFromItsCacheUnlessTheXMLIsNewer() throws {
        let dir = TemporaryDirectory("type-database")
        let system = [UInt8](try #require(FileManager.default.contents(atPath: "/usr/share/mime/mime.cache")))

        // No cache: the package XML, on top of the system's cache.
        let xmlOnly = registry(dir, "xml", cache: nil)
        #expect(knowsBeer(xmlOnly))
        #expect(xmlOnly.resolve(ResolutionRequest(fileName: "a.png")).mimeType == "image/png")

        // A fresh cache is trusted, as GLib trusts it: one without the package's type hides it.
        let fresh = registry(dir, "fresh", cache: system)
        #expect(!knowsBeer(fresh))
        #expect(fresh.sharedMimeInfo.sources.contains(dir.at("fresh/mime/mime.cache")))

        // A cache older than the package XML (update-mime-database not run since): the XML.
        let stale = registry(dir, "stale", cache: system, cacheIsOlder: true)
        #expect(knowsBeer(stale))

        // A damaged cache: the XML, with a warning naming the cache.
        let damaged = registry(dir, "damaged", cache: Array(system.prefix(64)))
        #expect(knowsBeer(damaged))
        #expect(damaged.sharedMimeInfo.warnings.contains { $0.contains(dir.at("damaged/mime/mime.cache")) })
    }

    /// The merged registry is kept in the user's snapshot and read back by the next process, until
    /// one of its sources changes: a package file, the registrations, or the snapshot itself.
    @Test func theNextProcessReadsTheSnapshotUntilASourceChanges() throws {
        let dir = TemporaryDirectory("type-snapshot")
        let environment = beerUser(dir)
        let packages = dir.at("data/mime/packages")
        let store = ApplicationStore(directory: dir.at("apps"))
        // Each provider stands for a new process.
        func current() -> TypeRegistry { RegistryProvider(applications: store, environment: environment).current() }
        let snapshot = dir.at("cache/share/type-registry.snapshot")

        #expect(knowsBeer(current()))
        #expect(FileManager.default.fileExists(atPath: snapshot))

        // What the snapshot holds is what the next process answers: one planted for the same
        // sources (a registry without the package's type) is believed.
        let directories = SharedMimeInfo.defaultPackageDirectories(environment: environment)
        func plant() throws {
            let sources = RegistryProvider.sourcesKey(
                databaseState: RegistryProvider.state(ofDirectories: directories), applicationsState: store.stateKey())
            let key = try #require(RegistrySnapshotFile(environment: environment)).key(sources: sources)
            let planted = try #require(TypeRegistry(sharedMimeInfo: TestApps.database).snapshot(key: key))
            _ = FileManager.default.createFile(atPath: snapshot, contents: Data(planted))
        }
        try plant()
        #expect(!knowsBeer(current()))

        // A changed package file makes it stale: merged again, and written again.
        FileTree.writeText(packages + "/beer.xml", Self.beer.replacingOccurrences(of: "*.btkr", with: "*.btkr2"))
        #expect(current().resolve(ResolutionRequest(fileName: "stout.btkr2")).mimeType == "application/x-beertracker")
        #expect(current().resolve(ResolutionRequest(fileName: "stout.btkr")).mimeType != "application/x-beertracker")

        // So does a registration.
        try plant()
        try TestApps.registerNotes(in: store, dir: dir)
        #expect(current().handlers(for: "com.example.note").best?.applicationID == "com.example.notes")
        #expect(current().resolve(ResolutionRequest(fileName: "stout.btkr2")).mimeType == "application/x-beertracker")

        // A damaged snapshot is merged again and replaced.
        _ = FileManager.default.createFile(atPath: snapshot, contents: Data("damaged".utf8))
        #expect(current().handlers(for: "com.example.note").best?.applicationID == "com.example.notes")
        #expect((try? FileManager.default.attributesOfItem(atPath: snapshot)[.size] as? Int) ?? 0 > 1000)
    }

    /// The snapshot lives in `$XDG_CACHE_HOME/share`, else `~/.cache/share`, readable by the user
    /// alone; the next process reads it instead of merging.
    @Test func theSnapshotLivesInTheUsersCache() throws {
        let dir = TemporaryDirectory("type-snapshot-place")
        let store = ApplicationStore(directory: dir.at("apps"))
        func current(_ environment: [String: String]) -> TypeRegistry {
            RegistryProvider(applications: store, environment: environment).current()
        }
        let home = ["HOME": dir.at("home"), "XDG_DATA_HOME": dir.at("data"), "XDG_DATA_DIRS": "/usr/share"]
        _ = current(home)
        let inHome = dir.at("home/.cache/share/type-registry.snapshot")
        let attributes = try FileManager.default.attributesOfItem(atPath: inHome)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        var cache = home
        cache["XDG_CACHE_HOME"] = dir.at("cache")
        #expect(current(cache).resolve(ResolutionRequest(fileName: "a.png")).mimeType == "image/png")
        #expect(FileManager.default.fileExists(atPath: dir.at("cache/share/type-registry.snapshot")))
    }

    /// A snapshot that cannot be written (the cache folder is a file) costs only the merge: every
    /// process answers as if there were none.
    @Test func anUnwritableSnapshotOnlyCostsTheMerge() throws {
        let dir = TemporaryDirectory("type-snapshot-unwritable")
        let environment = beerUser(dir)
        FileTree.writeText(dir.at("cache"), "not a folder")
        let store = ApplicationStore(directory: dir.at("apps"))
        for _ in 0..<2 {
            let registry = RegistryProvider(applications: store, environment: environment).current()
            #expect(knowsBeer(registry))
            #expect(registry.resolve(ResolutionRequest(fileName: "a.png")).mimeType == "image/png")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.at("cache/share")))
    }

    /// A snapshot damaged in the middle (one byte changed, the length intact) is not believed: the
    /// registry is merged again and the snapshot written anew.
    @Test func aCorruptSnapshotIsMergedAgainAndReplaced() throws {
        let dir = TemporaryDirectory("type-snapshot-corrupt")
        let environment = beerUser(dir)
        let store = ApplicationStore(directory: dir.at("apps"))
        func current() -> TypeRegistry { RegistryProvider(applications: store, environment: environment).current() }
        let path = dir.at("cache/share/type-registry.snapshot")
        #expect(knowsBeer(current()))
        let written = [UInt8](try #require(FileManager.default.contents(atPath: path)))

        // The beer type's pattern, changed in place: believed, it would type `stout.btkr` no more.
        var corrupt = written
        let pattern = Array("*.btkr".utf8)
        let at = try #require(
            (0...(corrupt.count - pattern.count)).first { Array(corrupt[$0..<($0 + pattern.count)]) == pattern })
        corrupt[at + 2] = UInt8(ascii: "x")
        _ = FileManager.default.createFile(atPath: path, contents: Data(corrupt))
        #expect(knowsBeer(current()))
        let replaced = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        #expect(replaced != corrupt)
        #expect(replaced.count == written.count)
    }
}
