import Testing

@testable import TypeRegistry

@Suite struct LookupTests {
    @Test(arguments: [
        ("report.pdf", "com.adobe.pdf"), ("photo.JPG", "public.jpeg"), ("notes.txt", "public.plain-text"),
        ("archive.tar.gz", "org.gnu.gnu-zip-tar-archive"), ("ARCHIVE.TAR.GZ", "org.gnu.gnu-zip-tar-archive"),
        ("archive.tgz", "org.gnu.gnu-zip-tar-archive"), ("bug.scarybug.gz", "org.gnu.gnu-zip-archive"),
        ("script.py", "public.python-script"), ("Makefile", "public.make-source"),
        ("main.C", "public.c-plus-plus-source"),
        ("main.c", "public.c-source"), ("README.TXT", "public.plain-text"),
        ("doc.docx", "org.openxmlformats.wordprocessingml.document"),
        ("song.mp3", "public.mp3"), ("dir/sub/photo.jpeg", "public.jpeg"), ("data.json", "public.json"),
        ("file.1.2.txt", "public.plain-text"), ("lib.so.1", "public.unix-executable"),
    ])
    func typeForFileName(name: String, expected: String) {
        #expect(Fixtures.registry.types(forFileName: name).first == TypeIdentifier(expected))
    }

    @Test(arguments: [".bashrc", "noext", "x.", "x.qqqzzz"])
    func namesWithoutAKnownExtension(name: String) {
        #expect(Fixtures.registry.types(forFileName: name).isEmpty)
    }

    @Test func builtInsResolveNamesWithoutTheDatabase() {
        let registry = Fixtures.builtinRegistry
        #expect(registry.preferredType(forFileName: "a.tar.gz") == "org.gnu.gnu-zip-tar-archive")
        #expect(registry.preferredType(forFileName: "a.gz") == "org.gnu.gnu-zip-archive")
        #expect(registry.preferredType(forFileName: "A.PNG") == "public.png")
    }

    @Test func extensionLookups() {
        let registry = Fixtures.registry
        #expect(registry.types(forFilenameExtension: "JPG").first?.identifier == "public.jpeg")
        #expect(registry.types(forFilenameExtension: ".jpeg").first?.identifier == "public.jpeg")
        #expect(registry.types(forFilenameExtension: "tar.gz").first?.identifier == "org.gnu.gnu-zip-tar-archive")
        #expect(
            registry.types(forFilenameExtension: "m").map(\.identifier).prefix(2) == [
                "public.objective-c-source", "mime.text.x-matlab",
            ])
        #expect(registry.preferredType(forFilenameExtension: "Plist") == "com.apple.property-list")
        #expect(registry.record(for: "public.jpeg")?.filenameExtensions.prefix(3) == ["jpeg", "jpg", "jpe"])
    }

    @Test func mimeLookups() {
        let registry = Fixtures.registry
        #expect(registry.preferredType(forMIMEType: "image/JPEG") == "public.jpeg")
        #expect(registry.preferredType(forMIMEType: "image/pjpeg") == "public.jpeg")
        #expect(registry.preferredType(forMIMEType: "text/plain; charset=utf-8") == "public.plain-text")
        #expect(registry.preferredType(forMIMEType: "application/x-gzip") == "org.gnu.gnu-zip-archive")
        #expect(registry.preferredType(forMIMEType: "application/x-compressed-tar") == "org.gnu.gnu-zip-tar-archive")
        #expect(registry.preferredType(forMIMEType: "application/x-zip") == "public.zip-archive")
        #expect(registry.preferredType(forMIMEType: "inode/directory") == "public.folder")
        #expect(registry.record(for: "public.zip-archive")?.preferredMIMEType == "application/zip")
    }

    @Test func unknownTagsGetDynamicTypesThatRoundTrip() throws {
        let registry = Fixtures.registry
        let byExtension = registry.preferredType(forFilenameExtension: ".QQZZ")
        #expect(byExtension.isDynamic)
        let record = try #require(registry.record(for: byExtension))
        #expect(record.filenameExtensions == ["qqzz"])
        #expect(record.origin == .dynamic)
        #expect(registry.conforms(byExtension, to: .data))
        #expect(registry.conforms(byExtension, to: .item))
        #expect(!registry.conforms(byExtension, to: .directory))
        #expect(registry.preferredType(forFilenameExtension: "qqzz") == byExtension)

        let folder = registry.preferredType(forFilenameExtension: "qqzz", conformingTo: .directory)
        #expect(folder != byExtension)
        #expect(registry.conforms(folder, to: .directory))
        #expect(!registry.conforms(folder, to: .data))

        let byMIME = registry.preferredType(forMIMEType: "Application/X-Made-Up; v=1")
        #expect(byMIME.isDynamic)
        #expect(registry.record(for: byMIME)?.mimeTypes == ["application/x-made-up"])
        #expect(registry.conforms(byMIME, to: .data))

        #expect(registry.preferredType(forFileName: "x.qqzz") == byExtension)
        #expect(registry.preferredType(forFileName: "noext") == .data)
        #expect(!registry.isDeclared(byExtension))
        #expect(registry.record(for: "com.nobody.declared") == nil)
    }

    @Test func typeMatchingUserQueries() {
        let registry = Fixtures.registry
        #expect(registry.type(matching: "public.png") == "public.png")
        #expect(registry.type(matching: "image/png") == "public.png")
        #expect(registry.type(matching: ".png") == "public.png")
        #expect(registry.type(matching: ".qqzz")?.isDynamic == true)
        #expect(registry.type(matching: "com.nobody.declared") == nil)
    }
}
