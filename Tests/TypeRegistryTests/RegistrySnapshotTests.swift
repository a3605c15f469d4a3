import Foundation
import Testing

@testable import TypeRegistry

/// A registry read back from its snapshot answers exactly as the registry it was made from, for
/// the installed shared-mime-info database and applications that join, collide and claim; a
/// snapshot that is damaged, of another format or of other sources is refused.
@Suite struct RegistrySnapshotTests {
    /// Applications that exercise every table: exported and imported types, joins by extension
    /// and MIME type, collisions, owners, a catch-all, and extensions outside ASCII (one in
    /// decomposed form, one with the Kelvin sign, which Swift equates with "K").
    static let applications: [ApplicationRegistration] = {
        let kiwix = try? TypeUnificationTests.exporter("org.kiwix.kiwix", [("org.openzim.zim", ["zim"])], at: 4)
        let editor = try? TypeUnificationTests.exporter(
            "com.example.editor", [("com.example.editor.css", ["css"]), ("com.example.editor.tex", ["tex"])],
            parent: "public.source-code", at: 5)
        let first = try? TypeUnificationTests.exporter("com.example.first", [("com.example.first.note", ["note"])], at: 6)
        let second = try? TypeUnificationTests.exporter(
            "com.example.second", [("com.example.second.note", ["note"])], at: 7)
        let unicode = try? TypeUnificationTests.exporter(
            "com.example.menus", [("com.example.menus.card", ["cafe\u{301}", "\u{212A}elvin"])], at: 8)
        let viewer = try? Fixtures.claimingApp(
            "com.example.viewer", types: ["public.image", "public.plain-text"], extensions: ["log"], rank: "Default",
            at: 9)
        let apps = [
            try? Fixtures.app(Fixtures.scaryBugs, at: 1), try? Fixtures.app(Fixtures.beerTracker, at: 2),
            try? Fixtures.app(Fixtures.customFile, at: 3), kiwix, editor, first, second, unicode, viewer,
            try? TypeUnificationTests.catchAll(at: 10),
        ]
        return apps.compactMap { $0 }
    }()

    static let database: SharedMimeInfo = {
        let path = "/usr/share/mime/mime.cache"
        let bytes = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
        return (try? SharedMimeInfo.parse(cache: bytes, source: path)) ?? Fixtures.database
    }()

    static let built = TypeRegistry(sharedMimeInfo: database, applications: applications)
    static let snapshot = built.snapshot(key: "test sources")

    /// Contents to type, from every family of magic, text and nothing at all.
    static let contents: [[UInt8]?] = [
        nil, [], Fixtures.Bytes.png, Fixtures.Bytes.jpeg, Fixtures.Bytes.pdf, Fixtures.Bytes.zip, Fixtures.Bytes.elf,
        Fixtures.Bytes.gzip, Fixtures.Bytes.shellScript, Fixtures.Bytes.text, Fixtures.Bytes.xmlPlist,
        Fixtures.Bytes.random, [0x5A, 0x49, 0x4D, 0x04, 0x05, 0, 0, 0] + Fixtures.Bytes.padding,
        Array("\"use strict\";\nmodule.exports = 1;\n".utf8), Array("<!DOCTYPE html><html></html>".utf8),
        Array("-----BEGIN CERTIFICATE-----\nMIIB\n".utf8), Array("%!PS-Adobe-3.0\n".utf8),
    ]

    /// A file name for every glob of the database and every declared extension, in both cases,
    /// plus names no pattern knows.
    static let names: [String] = {
        var names = ["", "README", "Makefile", "x.", ".bashrc", "archive.tar.gz", "menu.caf\u{E9}", "note.KELVIN"]
        names += ["a.\u{212A}elvin", "b.kelvin", "photo.JPG", "main.C", "main.c", "weird name.ts", "no-extension"]
        for glob in database.allGlobs.map(\.glob) {
            // The pattern with each wildcard replaced by text it matches (a class by its first member).
            var name = ""
            var inClass = false
            var classMember = false
            for character in glob.pattern {
                switch character {
                case "*" where !inClass: name += "name"
                case "?" where !inClass: name += "q"
                case "[" where !inClass: (inClass, classMember) = (true, true)
                case "]" where inClass: inClass = false
                case "!", "^" where inClass: break
                default:
                    if !inClass || classMember { name.append(character) }
                    classMember = false
                }
            }
            names.append(names.count % 5 == 0 ? name.uppercased() : name)
        }
        for record in built.allTypes { names += record.filenameExtensions.map { "file." + $0 } }
        return Array(Set(names)).sorted()
    }()

    private func loaded() throws -> TypeRegistry {
        let bytes = try #require(Self.snapshot, "every value of the installed database fits the format")
        return try TypeRegistry(snapshot: bytes, key: "test sources", applications: Self.applications)
    }

    @Test func everyTypeReadsBackAsItWasMerged() throws {
        let loaded = try loaded()
        let built = Self.built
        #expect(loaded.allTypes == built.allTypes)
        #expect(loaded.warnings == built.warnings)
        #expect(loaded.applications == built.applications)
        for (index, record) in built.allTypes.enumerated() {
            let type = record.identifier
            #expect(loaded.record(for: type) == record)
            #expect(loaded.supertypes(of: type) == built.supertypes(of: type), "\(type)")
            #expect(loaded.preferredMIMEType(for: type) == built.preferredMIMEType(for: type), "\(type)")
            // Declarers, handlers and conflicts of every application's type and of a sample of the rest.
            let isSharedMimeInfoType = if case .sharedMimeInfo = record.origin { true } else { false }
            if index % 8 == 0 || !isSharedMimeInfoType {
                #expect(loaded.explain(type) == built.explain(type), "\(type)")
            }
            for ext in record.filenameExtensions {
                #expect(loaded.types(forFilenameExtension: ext) == built.types(forFilenameExtension: ext), "\(ext)")
            }
            for mime in record.mimeTypes {
                #expect(loaded.types(forMIMEType: mime) == built.types(forMIMEType: mime), "\(mime)")
                #expect(loaded.type(forSharedMIMEType: mime) == built.type(forSharedMIMEType: mime), "\(mime)")
            }
        }
        for ancestor in ["public.data", "public.text", "public.image", "com.apple.package"] as [TypeIdentifier] {
            #expect(loaded.types(conformingTo: ancestor) == built.types(conformingTo: ancestor))
        }
        for application in Self.applications {
            let id = application.applicationID
            #expect(loaded.types(declaredBy: id) == built.types(declaredBy: id))
        }
        #expect(loaded.type(matching: ".caf\u{E9}") == built.type(matching: ".cafe\u{301}"))
        #expect(loaded.type(matching: ".kelvin") == built.type(matching: ".kelvin"))
    }

    @Test func everyNameAndContentResolvesAsBefore() throws {
        let loaded = try loaded()
        let built = Self.built
        for (index, name) in Self.names.enumerated() {
            let request = ResolutionRequest(fileName: name, content: Self.contents[index % Self.contents.count])
            let expected = built.resolve(request)
            let resolution = loaded.resolve(request)
            #expect(resolution == expected, "\(name)")
            if index % 4 == 0 {
                #expect(loaded.importChoice(for: resolution) == built.importChoice(for: expected), "\(name)")
            }
        }
        for content in Self.contents {
            for name in ["received", "received.qqzz", "package.json"] {
                for declared in [nil, "public.plain-text", "image/png", "com.example.beertracker.btkr"] {
                    let request = ResolutionRequest(fileName: name, declaredType: declared, content: content)
                    #expect(loaded.resolve(request) == built.resolve(request), "\(name) \(declared ?? "-")")
                }
            }
        }
        for name in ["Field Notes.notebook", "bugs.sbz", "x.oecoreplugin", "plain"] {
            let request = ResolutionRequest(fileName: name, isDirectory: true)
            #expect(loaded.resolve(request) == built.resolve(request), "\(name)/")
        }
    }

    @Test func theSharedMimeInfoDatabaseReadsBackWhole() throws {
        let loaded = try loaded().sharedMimeInfo
        let database = Self.database
        #expect(loaded.definitions == database.definitions)
        #expect(loaded.aliases == database.aliases)
        #expect(loaded.warnings == database.warnings)
        #expect(loaded.sources == database.sources)
        #expect(loaded.sortedTypes == database.sortedTypes)
        for content in Self.contents.compactMap({ $0 }) {
            #expect(loaded.sniff(content).map(\.mimeType) == database.sniff(content).map(\.mimeType))
            #expect(loaded.sniff(content).map(\.priority) == database.sniff(content).map(\.priority))
            #expect(loaded.sniffFirst(content)?.mimeType == database.sniffFirst(content)?.mimeType)
        }
        for mime in database.sortedTypes + database.aliases.keys.sorted() {
            #expect(loaded.canonicalName(mime) == database.canonicalName(mime))
            #expect(loaded.definition(mime) == database.definition(mime))
            #expect(loaded.parents(of: mime) == database.parents(of: mime))
            #expect(loaded.isSubclass(mime, of: "text/plain") == database.isSubclass(mime, of: "text/plain"))
        }
    }

    @Test func aRegistryReadFromASnapshotRegistersAsTheOriginal() throws {
        let loaded = try loaded()
        let app = try TypeUnificationTests.exporter(
            "com.example.later", [("com.example.later.doc", ["ldoc"])], parent: "public.text", at: 20)
        let a = loaded.registering(app).unregistering(applicationID: "com.example.first")
        let b = Self.built.registering(app).unregistering(applicationID: "com.example.first")
        #expect(a.allTypes == b.allTypes)
        #expect(a.warnings == b.warnings)
        for name in ["x.ldoc", "y.note", "z.zim"] {
            #expect(a.resolve(ResolutionRequest(fileName: name)) == b.resolve(ResolutionRequest(fileName: name)))
        }
    }

    @Test func aSnapshotOfOtherSourcesOrDamagedIsRefused() throws {
        let bytes = try #require(Self.snapshot)
        let apps = Self.applications
        #expect(throws: RegistrySnapshotError.otherKey) {
            try TypeRegistry(snapshot: bytes, key: "other sources", applications: apps)
        }
        #expect(throws: RegistrySnapshotError.notASnapshot) {
            try TypeRegistry(snapshot: Array("not a snapshot at all".utf8), key: "test sources", applications: apps)
        }
        var newer = bytes
        newer[4] = 2
        #expect(throws: RegistrySnapshotError.unsupportedVersion(2)) {
            try TypeRegistry(snapshot: newer, key: "test sources", applications: apps)
        }
        #expect(throws: RegistrySnapshotError.self) {
            try TypeRegistry(snapshot: Array(bytes.prefix(bytes.count / 2)), key: "test sources", applications: apps)
        }
        for position in [bytes.count / 3, bytes.count / 2, bytes.count - 1] {
            var changed = bytes
            changed[position] ^= 0x20
            #expect(throws: RegistrySnapshotError.self) {
                try TypeRegistry(snapshot: changed, key: "test sources", applications: apps)
            }
        }
    }
}
