import Foundation
import Testing

@testable import TypeRegistry

@Suite struct ResolutionTests {
    /// The installed database plus the three example applications.
    static let registry: TypeRegistry = {
        let apps = [Fixtures.scaryBugs, Fixtures.beerTracker, Fixtures.customFile].enumerated().map { index, body in
            try! Fixtures.app(body, at: TimeInterval(index))
        }
        return TypeRegistry(sharedMimeInfo: Fixtures.database, applications: apps)
    }()

    private func resolve(_ name: String, _ content: [UInt8]? = nil, declared: String? = nil, directory: Bool = false)
        -> Resolution
    {
        Self.registry.resolve(
            ResolutionRequest(fileName: name, isDirectory: directory, declaredType: declared, content: content))
    }

    @Test(arguments: [
        ("report.pdf", "com.adobe.pdf"), ("photo.JPG", "public.jpeg"), ("notes.txt", "public.plain-text"),
        ("archive.tar.gz", "org.gnu.gnu-zip-tar-archive"), ("script.py", "public.python-script"),
        ("bug.sbz", "com.example.scarybugs.sbz"),
        ("Beers.BTKR", "com.example.beertracker.btkr"), ("layout.mtt", "com.example.customfile.mtt"),
        ("in/a/folder/report.pdf", "com.adobe.pdf"),
    ])
    func byNameAlone(name: String, expected: String) {
        let resolution = resolve(name)
        #expect(resolution.type == TypeIdentifier(expected))
        #expect(resolution.basis == .fileName)
        #expect(resolution.isSafe)
        #expect(resolution.contradiction == nil)
    }

    @Test(arguments: [
        (Fixtures.Bytes.png, "public.png"), (Fixtures.Bytes.jpeg, "public.jpeg"), (Fixtures.Bytes.pdf, "com.adobe.pdf"),
        (Fixtures.Bytes.zip, "public.zip-archive"), (Fixtures.Bytes.gzip, "org.gnu.gnu-zip-archive"),
        (Fixtures.Bytes.text, "public.plain-text"),
    ])
    func byContentAlone(bytes: [UInt8], expected: String) {
        let resolution = resolve("received-file", bytes)
        #expect(resolution.type == TypeIdentifier(expected))
        #expect(resolution.basis == .content)
        #expect(resolution.isSafe)
        #expect(!resolution.isExecutable)
    }

    @Test func executablesByContentAloneAreHonestButFlagged() {
        let elf = resolve("tool", Fixtures.Bytes.elf)
        #expect(elf.type == .unixExecutable)
        #expect(elf.isExecutable)
        #expect(elf.isSafe)
        let script = resolve("cleanup", Fixtures.Bytes.shellScript)
        #expect(script.type == "public.shell-script")
        #expect(script.isExecutable)
        let exe = resolve("setup.exe", [0x4D, 0x5A, 0x90, 0] + Fixtures.Bytes.padding)
        #expect(exe.type == "com.microsoft.windows-executable")
        #expect(exe.contradiction == nil)
        #expect(exe.isExecutable)
        let prose = resolve("notes.txt", Array("MZ is a code, not a program.\n".utf8))
        #expect(prose.type == .plainText)
        #expect(prose.isSafe)
    }

    /// The safety check is separate from typing: the name keeps its type (as gio reports it), and
    /// the program inside is a disguise that no importer ever gets.
    @Test func anELFNamedJPEGKeepsItsTypeButIsADisguisedProgram() throws {
        let resolution = resolve("photo.jpg", Fixtures.Bytes.elf)
        #expect(resolution.type == "public.jpeg")
        #expect(resolution.mimeType == "image/jpeg")
        #expect(resolution.basis == .fileName)
        let contradiction = try #require(resolution.contradiction)
        #expect(contradiction.nameType == "public.jpeg")
        #expect(contradiction.contentType == .unixExecutable)
        #expect(contradiction.evidence == "an ELF executable")
        #expect(!resolution.isSafe)
        #expect(resolution.isExecutable)
        #expect(resolution.warnings.contains { $0.contains("disguised as public.jpeg") })
        #expect(resolution.nameTypes == ["public.jpeg"])
        guard case .receiveFolder(.unsafe(let warnings)) = Self.registry.importChoice(for: resolution) else {
            Issue.record("an ELF named .jpg must stay in the receive folder")
            return
        }
        #expect(!warnings.isEmpty)
    }

    @Test func scriptsAndProgramsUnderDocumentNamesAreDisguises() {
        let script = resolve("photo.jpg", Fixtures.Bytes.shellScript)
        #expect(script.type == "public.jpeg")
        #expect(script.contradiction?.contentType == .script)
        #expect(!script.isSafe)
        let unknownInterpreter = resolve("photo.jpg", Array("#!/opt/weird/interp\nrun\n".utf8))
        #expect(unknownInterpreter.contradiction != nil)
        #expect(!unknownInterpreter.isSafe)
        let disguisedAppDocument = resolve("list.btkr", Fixtures.Bytes.elf)
        #expect(disguisedAppDocument.type == "com.example.beertracker.btkr")
        #expect(disguisedAppDocument.contradiction?.nameType == "com.example.beertracker.btkr")
        #expect(!disguisedAppDocument.isSafe)
        let windows = resolve("invoice.pdf", [0x4D, 0x5A, 0x90, 0] + Fixtures.Bytes.padding)
        #expect(windows.contradiction?.evidence == "a DOS/Windows executable")
        #expect(!windows.isSafe)
    }

    /// One glob match settles the type without reading the content (spec §2.12; gio agrees).
    @Test func aSingleGlobMatchIsTrusted() {
        let png = resolve("photo.jpg", Fixtures.Bytes.png)
        #expect(png.type == "public.jpeg")
        #expect(png.contradiction == nil)
        #expect(png.isSafe)
        #expect(png.contentType == nil, "the content is not consulted")
        #expect(resolve("photo.png", Fixtures.Bytes.text).type == "public.png")
        #expect(resolve("notes.txt", Fixtures.Bytes.pdf + [0, 1, 2, 3]).type == .plainText)
    }

    @Test func agreeingContentKeepsTheName() {
        for (name, bytes, expected) in [
            ("photo.jpg", Fixtures.Bytes.jpeg, "public.jpeg"),
            ("archive.tar.gz", Fixtures.Bytes.gzip, "org.gnu.gnu-zip-tar-archive"),
            ("doc.docx", Fixtures.Bytes.zip, "org.openxmlformats.wordprocessingml.document"),
            ("book.epub", Fixtures.Bytes.zip, "org.idpf.epub-container"),
            ("bug.sbz", Fixtures.Bytes.gzip, "com.example.scarybugs.sbz"),
            ("layout.mtt", Fixtures.Bytes.zip, "com.example.customfile.mtt"),
            ("Beers.btkr", Fixtures.Bytes.xmlPlist, "com.example.beertracker.btkr"),
            ("script.py", Array("#!/usr/bin/env python3\nprint(1)\n".utf8), "public.python-script"),
            ("run.sh", Fixtures.Bytes.shellScript, "public.shell-script"),
            ("data.bin", Fixtures.Bytes.elf, "public.unix-executable"),
        ] as [(String, [UInt8], String)] {
            let resolution = resolve(name, bytes)
            #expect(resolution.type == TypeIdentifier(expected), "\(name): \(resolution.trace)")
            #expect(resolution.contradiction == nil, "\(name)")
            #expect(resolution.isSafe, "\(name): \(resolution.warnings)")
        }
    }

    @Test func aScriptNamedAsTextIsADisguise() {
        let resolution = resolve("notes.txt", Fixtures.Bytes.shellScript)
        #expect(resolution.type == .plainText)
        #expect(resolution.contradiction?.nameType == .plainText)
        #expect(resolution.isExecutable)
        #expect(!resolution.isSafe)
    }

    @Test func unresolvableItemsAreNotSafe() {
        let unknown = resolve("blob.qqzz", Fixtures.Bytes.random)
        #expect(unknown.type.isDynamic)
        #expect(unknown.type == DynamicType(tagClass: .filenameExtension, tag: "qqzz").identifier)
        #expect(!unknown.isResolved)
        #expect(!unknown.isSafe)
        #expect(Self.registry.importChoice(for: unknown) == .receiveFolder(.unresolved(unknown.type)))
        let nothing = resolve("blob", Fixtures.Bytes.random)
        #expect(nothing.type == .data)
        #expect(nothing.basis == .fallback)
        #expect(!nothing.isSafe)
        let unknownText = resolve("notes.qqzz", Fixtures.Bytes.text)
        #expect(unknownText.type == .plainText)
        #expect(unknownText.isSafe)
        let notRead = resolve("blob.qqzz")
        #expect(notRead.type.isDynamic)
        #expect(!notRead.isSafe)
    }

    @Test func theSendersDeclaredTypeIsAHint() {
        // Refines a compatible result.
        #expect(
            resolve("Inventory", Fixtures.Bytes.xmlPlist, declared: "com.example.beertracker.btkr").type
                == "com.example.beertracker.btkr")
        #expect(
            resolve("Inventory", Fixtures.Bytes.xmlPlist, declared: "application/beertracker").basis == .declaredType)
        #expect(
            resolve("bug.gz", Fixtures.Bytes.gzip, declared: "com.example.scarybugs.sbz").type
                == "com.example.scarybugs.sbz")
        #expect(resolve("report.pdf", Fixtures.Bytes.pdf, declared: "com.adobe.pdf").basis == .fileName)
        // Fills in when nothing else can tell.
        #expect(
            resolve("layout", Fixtures.Bytes.random, declared: "com.example.customfile.mtt").type
                == "com.example.customfile.mtt")
        #expect(resolve("notes", Fixtures.Bytes.text, declared: "public.json").type == "public.json")
        #expect(
            resolve("payload", Fixtures.Bytes.zip, declared: "com.example.customfile.mtt").type
                == "com.example.customfile.mtt")
        // Ignored when contradicted, unknown or dynamic.
        let wrong = resolve("photo.png", Fixtures.Bytes.png, declared: "public.jpeg")
        #expect(wrong.type == "public.png")
        #expect(wrong.declaredType == "public.jpeg")
        #expect(wrong.warnings.contains { $0.contains("the sender declared public.jpeg") })
        #expect(resolve("blob", Fixtures.Bytes.random, declared: "public.json").type == .data)
        #expect(resolve("x.qqzz", Fixtures.Bytes.random, declared: "com.nobody.knows").type.isDynamic)
        #expect(resolve("x.qqzz", Fixtures.Bytes.random, declared: "dyn.ah62d4rv4ge81e2pw").declaredType == nil)
        // A program declared as something harmless is a disguise.
        let disguised = resolve("tool", Fixtures.Bytes.elf, declared: "public.plain-text")
        #expect(disguised.type == .unixExecutable)
        #expect(!disguised.isSafe)
    }

    @Test func directoriesArePackagesOrFolders() throws {
        #expect(resolve("Report.rtfd", directory: true).type == "com.apple.rtfd")
        #expect(resolve("Report.rtfd/", directory: true).type == "com.apple.rtfd")
        let folder = resolve("Holiday Photos", directory: true)
        #expect(folder.type == .folder)
        #expect(folder.basis == .directory)
        #expect(folder.isSafe)
        #expect(resolve("pictures.jpg", directory: true).type == .folder)

        let notebook = try Fixtures.manifest(
            InspectionTests.manifest
                + "<key>ShareImporter</key><dict><key>Kind</key><string>move</string><key>Folder</key><string>Notes</string></dict>"
        )
        let registry = Self.registry.registering(try ApplicationRegistration(manifest: notebook, paths: Fixtures.paths))
        let package = registry.resolve(
            ResolutionRequest(fileName: "Ideas.NBK", isDirectory: true, content: Fixtures.Bytes.elf))
        #expect(package.type == "com.example.notebook.nbk")
        #expect(package.isSafe)
        #expect(!package.isExecutable)
        #expect(registry.conforms(package.type, to: .directory))
        guard case .application(let handler) = registry.importChoice(for: package) else {
            Issue.record("the notebook app should import its package")
            return
        }
        #expect(handler.applicationID == "com.example.notebook")
        #expect(handler.importer == .move(folder: "/opt/apps/example/Notes"))
    }

    /// Rule 4: a folder whose package type share would have to invent (a dynamic type, here for an
    /// extension a registered app marks LSTypeIsPackage without declaring a type) is never imported.
    @Test func aDynamicFolderTypeIsNeverImported() throws {
        let app = try Fixtures.app(
            """
            <key>CFBundleIdentifier</key><string>com.example.oecore</string>
            <key>CFBundleDocumentTypes</key><array><dict>
                <key>CFBundleTypeExtensions</key><array><string>oecoreplugin</string></array>
                <key>LSTypeIsPackage</key><true/>
                <key>LSHandlerRank</key><string>Owner</string>
            </dict></array>
            <key>ShareImporter</key><dict><key>Kind</key><string>copy</string><key>Folder</key><string>/srv/plugins</string></dict>
            """)
        let registry = Self.registry.registering(app)
        let resolution = registry.resolve(ResolutionRequest(fileName: "x.oecoreplugin", isDirectory: true))
        #expect(
            resolution.type
                == DynamicType(tagClass: .filenameExtension, tag: "oecoreplugin", conformsTo: .directory).identifier)
        #expect(resolution.mimeType == "inode/directory")
        #expect(!resolution.isResolved)
        #expect(!resolution.isSafe)
        #expect(registry.importChoice(for: resolution) == .receiveFolder(.unresolved(resolution.type)))
        // A plain folder with an unknown extension is a folder, not a package.
        #expect(Self.registry.resolve(ResolutionRequest(fileName: "y.oecoreplugin", isDirectory: true)).type == .folder)
    }
}
