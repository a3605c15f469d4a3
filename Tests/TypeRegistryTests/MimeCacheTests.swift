import Foundation
import Testing

@testable import TypeRegistry

/// shared-mime-info's compiled `mime.cache`, read without its package XML: it must hold the same
/// database, and a damaged cache must fail cleanly.
@Suite struct MimeCacheTests {
    static let cachePath = "/usr/share/mime/mime.cache"
    static let bytes = [UInt8](FileManager.default.contents(atPath: cachePath) ?? Data())
    static let cache = try? SharedMimeInfo.parse(cache: bytes, source: cachePath)

    private static func lowered(_ globs: [MimeGlob]) -> Set<String> {
        Set(globs.map { "\($0.caseSensitive ? $0.pattern : $0.pattern.lowercased()):\($0.weight):\($0.caseSensitive)" })
    }

    @Test func theInstalledCacheHoldsWhatThePackageXMLSays() throws {
        let cache = try #require(Self.cache, "update-mime-database writes \(Self.cachePath)")
        let xml = Fixtures.database
        for (type, definition) in xml.definitions where !definition.globs.isEmpty || !definition.magic.isEmpty {
            let cached = try #require(cache.definitions[type], "\(type) is in the cache")
            #expect(Self.lowered(cached.globs) == Self.lowered(definition.globs), "\(type)")
            #expect(cached.magic.map(\.priority).sorted() == definition.magic.map(\.priority).sorted(), "\(type)")
            #expect(Set(cached.parents) == Set(definition.parents.compactMap { xml.canonicalName($0) }), "\(type)")
        }
        #expect(cache.aliases == xml.aliases)
        #expect(cache.definitions["image/png"]?.comment == nil, "the cache holds no comments")
    }

    @Test func registriesFromTheCacheAndFromTheXMLResolveAlike() throws {
        let cache = try #require(Self.cache)
        let fromCache = TypeRegistry(sharedMimeInfo: cache)
        let fromXML = Fixtures.registry
        let samples: [(String, [UInt8]?)] = [
            ("photo.jpg", Fixtures.Bytes.jpeg), ("received", Fixtures.Bytes.png), ("a.tar.gz", Fixtures.Bytes.gzip),
            ("main.C", Array("int x;\n".utf8)), ("server.key", Array("-----BEGIN PGP PRIVATE KEY BLOCK-----\n".utf8)),
            ("Makefile", nil), ("x.py", Array("#!/usr/bin/env python3\n".utf8)), ("doc", Fixtures.Bytes.pdf),
            ("tool", Fixtures.Bytes.elf), ("blob.qqzz", Fixtures.Bytes.random), ("book.epub", Fixtures.Bytes.zip),
        ]
        for (name, content) in samples {
            let a = fromCache.resolve(ResolutionRequest(fileName: name, content: content))
            let b = fromXML.resolve(ResolutionRequest(fileName: name, content: content))
            #expect(a.type == b.type, "\(name)")
            #expect(a.mimeType == b.mimeType, "\(name)")
        }
    }

    @Test func aDamagedCacheIsRefusedNotTrusted() throws {
        try #require(!Self.bytes.isEmpty)
        #expect(throws: MimeCacheError.self) { try SharedMimeInfo.parse(cache: Array(Self.bytes.prefix(100)), source: "t") }
        #expect(throws: MimeCacheError.self) { try SharedMimeInfo.parse(cache: [], source: "t") }
        var newer = Self.bytes
        newer[3] = 9
        #expect(throws: MimeCacheError.unsupportedVersion("t", major: 1, minor: 9)) {
            try SharedMimeInfo.parse(cache: newer, source: "t")
        }
        // A suffix tree whose first root points back at the roots: a loop, which must end.
        var looping = Self.bytes
        let tree = Self.u32(looping, 16)
        let roots = Self.u32(looping, tree)
        let firstRoot = Self.u32(looping, tree + 4)
        Self.put(roots, into: &looping, at: firstRoot + 4)
        Self.put(firstRoot, into: &looping, at: firstRoot + 8)
        #expect(throws: MimeCacheError.self) { try SharedMimeInfo.parse(cache: looping, source: "t") }
        // An offset past the end.
        var dangling = Self.bytes
        Self.put(UInt32(dangling.count + 100), into: &dangling, at: 4)
        #expect(throws: MimeCacheError.self) { try SharedMimeInfo.parse(cache: dangling, source: "t") }
    }

    @Test func databasesOfSeveralDirectoriesAddUp() throws {
        let cache = try #require(Self.cache)
        let user = SharedMimeInfo.parse([
            (
                "user.xml",
                Data(
                    """
                    <mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
                      <mime-type type="application/x-beertracker"><comment>Beer list</comment><glob pattern="*.btkr"/></mime-type>
                      <mime-type type="image/png"><glob pattern="*.png2"/></mime-type>
                    </mime-info>
                    """.utf8)
            )
        ])
        let combined = SharedMimeInfo.combining([cache, user])
        #expect(combined.mimeTypes(forFileName: "x.btkr").first?.mimeType == "application/x-beertracker")
        #expect(combined.mimeTypes(forFileName: "x.png2").first?.mimeType == "image/png")
        #expect(combined.mimeTypes(forFileName: "x.png").first?.mimeType == "image/png")
        #expect(combined.sniffFirst(Fixtures.Bytes.png)?.mimeType == "image/png")
        #expect(combined.definitions["application/x-beertracker"]?.comment == "Beer list")
    }

    @Test func theCommentOfATypeFileIsItsUntranslatedComment() throws {
        let data = try #require(FileManager.default.contents(atPath: "/usr/share/mime/image/png.xml"))
        #expect(SharedMimeInfo.comment(inTypeFile: [UInt8](data)) == "PNG image")
        #expect(SharedMimeInfo.comment(inTypeFile: Array("<mime-info/>".utf8)) == nil)
    }

    private static func u32(_ bytes: [UInt8], _ offset: Int) -> Int {
        Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }

    private static func put(_ value: some BinaryInteger, into bytes: inout [UInt8], at offset: Int) {
        let number = UInt32(truncatingIfNeeded: value)
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: number >> (24 - 8 * index)) }
    }
}
