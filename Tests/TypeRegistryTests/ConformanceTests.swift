import Testing

@testable import TypeRegistry

@Suite struct ConformanceTests {
    static let conforming: [(String, String)] = [
        ("public.jpeg", "public.image"), ("public.jpeg", "public.data"), ("public.jpeg", "public.item"),
        ("public.jpeg", "public.content"), ("public.png", "public.image"),
        ("com.apple.rtfd", "com.apple.package"), ("com.apple.rtfd", "public.directory"),
        ("com.apple.rtfd", "public.item"),
        ("public.json", "public.text"), ("public.json", "public.data"),
        ("public.python-script", "public.script"), ("public.python-script", "public.source-code"),
        ("public.python-script", "public.plain-text"), ("public.python-script", "public.text"),
        ("public.shell-script", "public.plain-text"), ("public.swift-source", "public.source-code"),
        ("com.apple.xml-property-list", "public.xml"), ("com.apple.xml-property-list", "com.apple.property-list"),
        ("public.zip-archive", "com.pkware.zip-archive"), ("public.zip-archive", "public.archive"),
        ("public.zip-archive", "public.data"),
        ("org.gnu.gnu-zip-tar-archive", "org.gnu.gnu-zip-archive"), ("public.tar-archive", "public.archive"),
        ("org.openxmlformats.wordprocessingml.document", "public.zip-archive"),
        ("org.openxmlformats.spreadsheetml.sheet", "public.spreadsheet"), ("com.adobe.pdf", "public.composite-content"),
        ("public.mpeg-4-audio", "public.audio"), ("public.mpeg-4-audio", "public.movie"),
        ("public.mp3", "public.audiovisual-content"),
        ("public.folder", "public.directory"), ("public.volume", "public.folder"),
        ("public.unix-executable", "public.executable"), ("public.heic", "public.image"),
        ("public.comma-separated-values-text", "public.text"), ("public.vcard", "public.contact"),
        ("JSON.PUBLIC", "JSON.PUBLIC"), ("Public.JSON", "PUBLIC.TEXT"),
    ]

    static let notConforming: [(String, String)] = [
        ("public.jpeg", "public.text"), ("public.jpeg", "public.directory"), ("public.image", "public.jpeg"),
        ("public.json", "public.image"), ("public.folder", "public.data"), ("com.apple.rtfd", "public.data"),
        ("public.plain-text", "public.script"), ("public.zip-archive", "public.text"),
        ("public.archive", "public.data"),
        ("public.shell-script", "public.executable"), ("public.data", "public.content"),
    ]

    @Test(arguments: conforming)
    func conforms(type: String, parent: String) {
        #expect(Fixtures.builtinRegistry.conforms(TypeIdentifier(type), to: TypeIdentifier(parent)))
        #expect(Fixtures.registry.conforms(TypeIdentifier(type), to: TypeIdentifier(parent)))
    }

    @Test(arguments: notConforming)
    func doesNotConform(type: String, parent: String) {
        #expect(!Fixtures.builtinRegistry.conforms(TypeIdentifier(type), to: TypeIdentifier(parent)))
        #expect(!Fixtures.registry.conforms(TypeIdentifier(type), to: TypeIdentifier(parent)))
    }

    @Test func builtInTableIsLargeAndConsistent() {
        let registry = Fixtures.builtinRegistry
        #expect(BuiltinTypes.declarations.count >= 60)
        #expect(registry.warnings.isEmpty, "\(registry.warnings)")
        for declaration in BuiltinTypes.declarations {
            #expect(declaration.identifier.isWellFormed)
            for parent in declaration.conformsTo {
                #expect(registry.isDeclared(parent), "\(declaration.identifier) → \(parent)")
            }
            let roots: [TypeIdentifier] = [
                .item, .content, .archive, "public.contact", "public.calendar-event", "public.message",
            ]
            let reachesRoot = roots.contains { registry.conforms(declaration.identifier, to: $0) }
            #expect(reachesRoot, "\(declaration.identifier) reaches no root")
        }
    }

    @Test func supertypesAreDepthFirstInDeclaredOrder() {
        #expect(
            Fixtures.builtinRegistry.supertypes(of: "public.jpeg") == [
                "public.image", "public.data", "public.item", "public.content",
            ])
    }

    @Test func conformancePathsAndDistances() {
        let registry = Fixtures.builtinRegistry
        #expect(
            registry.conformancePath(from: "public.python-script", to: .plainText) == [
                "public.python-script", "public.script", "public.source-code", "public.plain-text",
            ])
        #expect(registry.conformanceDistance(from: "public.png", to: .image) == 1)
        #expect(registry.conformanceDistance(from: "public.png", to: "public.png") == 0)
        #expect(registry.conformanceDistance(from: "public.png", to: .text) == nil)
        #expect(
            registry.conformanceChains(of: "public.png").contains([
                "public.png", "public.image", "public.data", "public.item",
            ]))
    }

    @Test func sharedMimeInfoTypesJoinTheGraph() throws {
        let registry = Fixtures.registry
        // A MIME type with a UTI mapping joins that UTI.
        #expect(registry.type(forSharedMIMEType: "application/x-shellscript") == "public.shell-script")
        #expect(registry.type(forSharedMIMEType: "text/x-sh") == "public.shell-script")
        #expect(registry.conforms("public.shell-script", to: .plainText))
        // Others get a type whose parents follow sub-class-of.
        let awk = try #require(registry.type(forSharedMIMEType: "application/x-awk"))
        #expect(awk == "mime.application.x-awk")
        #expect(registry.conforms(awk, to: .plainText))
        #expect(registry.conforms(awk, to: .executable))
        let diff = try #require(registry.type(forSharedMIMEType: "text/x-patch"))
        #expect(registry.conforms(diff, to: .plainText))
        let xcf = try #require(registry.type(forSharedMIMEType: "image/x-xcf"))
        #expect(registry.conforms(xcf, to: .image))
        #expect(registry.conforms(xcf, to: .data))
        let ogg = try #require(registry.type(forSharedMIMEType: "audio/x-vorbis+ogg"))
        #expect(registry.conforms(ogg, to: .audio))
        let mountPoint = try #require(registry.type(forSharedMIMEType: "inode/mount-point"))
        #expect(registry.conforms(mountPoint, to: .directory))
        #expect(!registry.conforms(mountPoint, to: .data))
        #expect(registry.warnings.isEmpty, "\(registry.warnings)")
    }

    @Test func everyTypeReachesAPhysicalOrFunctionalRoot() {
        let registry = Fixtures.registry
        let roots: [TypeIdentifier] = [
            .item, .content, .archive, "public.contact", "public.calendar-event", "public.message",
        ]
        for record in registry.allTypes {
            #expect(roots.contains { registry.conforms(record.identifier, to: $0) }, "\(record.identifier)")
        }
    }
}
