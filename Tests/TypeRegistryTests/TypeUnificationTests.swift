import Foundation
import Testing

@testable import TypeRegistry

/// Rule 1: a type an application declares and the shared-mime-info type for the same files are one
/// type, met on MIME types, extensions and content; real collisions are reported, not decided silently.
@Suite struct TypeUnificationTests {
    /// An application exporting one type per entry `(identifier, extensions)`, without MIME types,
    /// and claiming them all; modelled on Kiwix's and code editors' Info.plist files.
    static func exporter(
        _ id: String, _ types: [(String, [String])], parent: String = "public.data", at seconds: TimeInterval
    ) throws -> ApplicationRegistration {
        let declarations = types.map { identifier, extensions in
            """
            <dict>
                <key>UTTypeIdentifier</key><string>\(identifier)</string>
                <key>UTTypeConformsTo</key><array><string>\(parent)</string></array>
                <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><array>\(
                    extensions.map { "<string>\($0)</string>" }.joined())</array></dict>
            </dict>
            """
        }.joined()
        return try Fixtures.claimingApp(
            id, types: types.map(\.0), rank: "Owner", role: "Editor",
            exports: "<key>UTExportedTypeDeclarations</key><array>\(declarations)</array>", at: seconds)
    }

    /// A catch-all application claiming `public.data`, as many viewers do.
    static func catchAll(at seconds: TimeInterval) throws -> ApplicationRegistration {
        try Fixtures.claimingApp("com.example.hexviewer", types: ["public.data"], rank: "Alternate", at: seconds)
    }

    @Test func anExportedExtensionJoinsTheSharedMimeInfoTypeWithItsMagic() throws {
        let kiwix = try Self.exporter("org.kiwix.kiwix", [("org.openzim.zim", ["zim"])], at: 1)
        let registry = TypeRegistry(sharedMimeInfo: Fixtures.database, applications: [try Self.catchAll(at: 0), kiwix])
        // `show .zim` and a real ZIM file (magic "ZIM\x04") name the same type and the same app.
        #expect(registry.type(matching: ".zim") == "org.openzim.zim")
        #expect(registry.type(matching: "application/x-openzim") == "org.openzim.zim")
        #expect(!registry.isDeclared("mime.application.x-openzim"))
        let record = try #require(registry.record(for: "org.openzim.zim"))
        #expect(record.mimeTypes == ["application/x-openzim"])
        #expect(record.description == nil || record.description == "OpenZIM file")
        let zim: [UInt8] = [0x5A, 0x49, 0x4D, 0x04, 0x05, 0, 0, 0] + Fixtures.Bytes.padding
        for name in ["wikipedia_en_all.zim", "wikipedia"] {
            let resolution = registry.resolve(ResolutionRequest(fileName: name, content: zim))
            #expect(resolution.type == "org.openzim.zim", "\(name): \(resolution.trace)")
            #expect(resolution.mimeType == "application/x-openzim")
            #expect(registry.importChoice(for: resolution) == .application(try #require(
                registry.handlers(for: "org.openzim.zim").best)))
            #expect(registry.handlers(for: resolution.type).best?.applicationID == "org.kiwix.kiwix")
        }
        #expect(registry.warnings.filter { $0.kind == .extensionCollision }.isEmpty)
    }

    @Test func sourceTypesWithoutMIMETypesKeepSharedMimeInfosMIMETypesAndAliases() throws {
        let editor = try Self.exporter(
            "com.example.editor",
            [
                ("com.example.editor.css", ["css"]), ("com.example.editor.tex", ["tex"]),
                ("com.example.editor.lua", ["lua"]), ("com.example.editor.haskell", ["hs"]),
            ], parent: "public.source-code", at: 1)
        let registry = TypeRegistry(sharedMimeInfo: Fixtures.database, applications: [editor])
        for (name, type, mime) in [
            ("style.css", "com.example.editor.css", "text/css"), ("paper.tex", "com.example.editor.tex", "text/x-tex"),
            ("init.lua", "com.example.editor.lua", "text/x-lua"),
            ("Main.hs", "com.example.editor.haskell", "text/x-haskell"),
        ] {
            let resolution = registry.resolve(ResolutionRequest(fileName: name, content: Array("x = 1\n".utf8)))
            #expect(resolution.type == TypeIdentifier(type))
            #expect(resolution.mimeType == mime)
            #expect(registry.record(for: TypeIdentifier(type))?.mimeTypes.first == mime)
        }
        // Aliases are kept: text/x-tex's alias application/x-tex finds the app's type too.
        #expect(registry.record(for: "com.example.editor.tex")?.mimeTypes.contains("application/x-tex") == true)
        #expect(registry.type(matching: "application/x-tex") == "com.example.editor.tex")
        // And the other globs of the joined type come along (.sty is TeX too).
        #expect(registry.types(forFileName: "article.sty") == ["com.example.editor.tex"])
    }

    @Test func twoTypesClaimingOneExtensionAreReportedNotDecidedSilently() throws {
        let first = try Self.exporter("com.example.first", [("com.example.first.note", ["note"])], at: 1)
        let second = try Self.exporter("com.example.second", [("com.example.second.note", ["note"])], at: 2)
        let registry = TypeRegistry(sharedMimeInfo: Fixtures.database, applications: [first, second])
        let collision = try #require(registry.warnings.first { $0.kind == .extensionCollision })
        #expect(collision.types == ["com.example.first.note", "com.example.second.note"])
        #expect(collision.concerns(applicationID: "com.example.second"))
        #expect(
            collision.message
                == "extension collision: .note is claimed by com.example.first.note (app com.example.first (exported)) "
                + "and com.example.second.note (app com.example.second (exported)); a file named *.note gets the type "
                + "its content's magic matches, otherwise com.example.first.note")
        #expect(registry.explain("com.example.second.note")?.conflicts.contains(collision.message) == true)
        #expect(registry.explain(try #require(registry.type(matching: ".note")))?.conflicts.contains(collision.message) == true)
        #expect(registry.types(forFileName: "a.note") == ["com.example.first.note", "com.example.second.note"])
    }

    /// An extension shared-mime-info gives two types (`*.ts`: MPEG transport streams and Qt
    /// translations) is not joined: the app's type collides with both, and the content decides.
    @Test func anAmbiguousSharedMimeInfoExtensionIsNotJoined() throws {
        let app = try Self.exporter("com.example.typescript", [("com.example.typescript.source", ["ts"])], at: 1)
        let registry = TypeRegistry(sharedMimeInfo: Fixtures.database, applications: [app])
        let collision = try #require(registry.warnings.first { $0.kind == .extensionCollision })
        #expect(collision.types.first == "com.example.typescript.source")
        #expect(collision.types.contains("mime.video.mp2t"))
        // MPEG-TS content (sync byte 0x47 every 188 bytes) is typed by its magic, not as the app's source.
        var transport = [UInt8](repeating: 0, count: 188 * 5)
        for packet in 0..<5 { transport[188 * packet] = 0x47 }
        let video = registry.resolve(ResolutionRequest(fileName: "clip.ts", content: transport))
        #expect(video.type == "mime.video.mp2t", "\(video.trace)")
    }

    @Test func aBuiltinDeclarationAbsorbsSharedMimeInfoTypesOfItsExtensions() {
        // No app: Apple's public.svg-image declares .svgz, and shared-mime-info's
        // image/svg+xml-compressed (*.svgz) joins it; a .svgz file keeps its own MIME type.
        let registry = Fixtures.registry
        #expect(!registry.isDeclared("mime.image.svg-xml-compressed"))
        let resolution = registry.resolve(ResolutionRequest(fileName: "drawing.svgz"))
        #expect(resolution.type == "public.svg-image")
        #expect(resolution.mimeType == "image/svg+xml-compressed")
        #expect(registry.resolve(ResolutionRequest(fileName: "drawing.svg")).mimeType == "image/svg+xml")
    }
}
