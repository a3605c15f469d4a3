import Foundation
import ShareKit
import ShareTestSupport
import Testing
import TypeRegistry

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
}
