import Testing

@testable import TypeRegistry

@Suite struct TypeIdentifierTests {
    @Test func comparesIgnoringCaseAndKeepsSpelling() {
        let mixed = TypeIdentifier("  Com.Example.ScaryBugs.SBZ \n")
        #expect(mixed == "com.example.scarybugs.sbz")
        #expect(mixed.rawValue == "Com.Example.ScaryBugs.SBZ")
        #expect(Set([mixed, "COM.EXAMPLE.SCARYBUGS.SBZ"]).count == 1)
        #expect(TypeIdentifier("public.jpeg") != "public.jpg")
    }

    @Test(arguments: [
        ("public.jpeg", true), ("com.example.x-y.z2", true), ("é.example", true),
        ("", false), ("com example", false), ("image/png", false), ("a:b", false), ("a..b", false), (".a", false),
        ("a.", false),
    ])
    func wellFormedness(text: String, valid: Bool) {
        #expect(TypeIdentifier(text).isWellFormed == valid)
    }

    @Test func domains() {
        #expect(TypeIdentifier("public.png").isPublic)
        #expect(TypeIdentifier("com.apple.package").isReservedForSystem)
        #expect(!TypeIdentifier("com.example.x").isReservedForSystem)
        #expect(TypeIdentifier("DYN.ah62d4rv4ge81e2pw").isDynamic)
    }

    /// Identifiers macOS gives files with these unknown extensions.
    @Test(arguments: [
        ("rar", "dyn.ah62d4rv4ge81e2pw"), ("drp", "dyn.ah62d4rv4ge80k6xu"), ("plugin", "dyn.ah62d4rv4ge81a5dzq7y06"),
        ("slpc", "dyn.ah62d4rv4ge81g5duqq"),
    ])
    func dynamicIdentifiersMatchMacOS(ext: String, identifier: String) {
        #expect(DynamicType(tagClass: .filenameExtension, tag: ext).identifier.rawValue == identifier)
        let decoded = DynamicType(identifier: TypeIdentifier(identifier))
        #expect(decoded?.tagClass == .filenameExtension)
        #expect(decoded?.tag == ext)
        #expect(decoded?.conformsTo == .data)
    }

    @Test(arguments: [
        (TagClass.filenameExtension, "sbz2", TypeIdentifier.data), (.filenameExtension, ".Tar.XYZ", .data),
        (.mimeType, "application/x-made-up", .data), (.filenameExtension, "bundlex", .directory),
        (.mimeType, "text/weird;x=a:b\\c", .data), (.filenameExtension, "ünïcode", .data),
    ])
    func dynamicTypesRoundTrip(tagClass: TagClass, tag: String, parent: TypeIdentifier) throws {
        let dynamic = DynamicType(tagClass: tagClass, tag: tag, conformsTo: parent)
        let identifier = dynamic.identifier
        #expect(identifier.isDynamic)
        #expect(identifier.isWellFormed)
        let decoded = try #require(DynamicType(identifier: TypeIdentifier(identifier.rawValue.uppercased())))
        #expect(decoded == dynamic)
        #expect(decoded.tag == dynamic.tag)
    }

    @Test func malformedDynamicIdentifiersDoNotDecode() {
        #expect(DynamicType(identifier: "dyn.a") == nil)
        #expect(DynamicType(identifier: "dyn.aiiii") == nil)
        #expect(DynamicType(identifier: "public.jpeg") == nil)
        #expect(DynamicType(identifier: "dyn.ah62d4rv4ge81e2pwzzzzzzzzzzzzzzzzz") == nil)
    }
}
