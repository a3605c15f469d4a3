import Foundation
import Testing

@testable import TypeRegistry

@Suite struct ImporterTests {
    private func importer(_ dictionary: String) throws -> ShareImporter {
        let manifest = try Fixtures.manifest("<key>ShareImporter</key><dict>\(dictionary)</dict>")
        let declaration = try #require(manifest.importer)
        return try ShareImporter(validating: declaration, paths: Fixtures.paths)
    }

    private func command(_ arguments: String, extra: String = "") throws -> ShareImporter {
        try importer("<key>Kind</key><string>command</string><key>Arguments</key>\(arguments)\(extra)")
    }

    private func folderImporter(_ kind: String, _ folder: String) throws -> ShareImporter {
        try importer("<key>Kind</key><string>\(kind)</string><key>Folder</key><string>\(folder)</string>")
    }

    @Test(arguments: [
        ("copy", "Inbox", ShareImporter.copy(folder: "/opt/apps/example/Inbox")),
        ("move", "~/Documents/Beer", .move(folder: "/home/ada/Documents/Beer")),
        ("unpack", "~", .unpack(folder: "/home/ada")),
        ("Copy", "/srv/../data/./in/", .copy(folder: "/data/in")),
        ("UNPACK", " ../store ", .unpack(folder: "/opt/apps/store")),
    ])
    func folderImporters(kind: String, folder: String, expected: ShareImporter) throws {
        #expect(try folderImporter(kind, folder) == expected)
    }

    @Test func commandImporters() throws {
        let bare = try command(
            "<array><string>beertracker</string><string>--import</string><string>%f</string></array>")
        guard case .command(let beer) = bare else {
            Issue.record("expected a command")
            return
        }
        #expect(beer.program == "beertracker")
        #expect(beer.searchesPath)
        #expect(beer.timeout == .seconds(60))
        #expect(beer.workingDirectory == nil)
        #expect(
            beer.argv(filePath: "/tmp/in box/Beers.btkr", type: "com.example.beertracker.btkr") == [
                "beertracker", "--import", "/tmp/in box/Beers.btkr",
            ])

        let relative = try command(
            "<array><string>bin/import</string><string>--file=%f</string><string>%t</string><string>100%%</string><string>%f%f</string></array>",
            extra: "<key>Timeout</key><real>2.5</real><key>Folder</key><string>work</string>")
        guard case .command(let tool) = relative else {
            Issue.record("expected a command")
            return
        }
        #expect(tool.program == "/opt/apps/example/bin/import")
        #expect(!tool.searchesPath)
        #expect(tool.timeout == .milliseconds(2500))
        #expect(tool.workingDirectory == "/opt/apps/example/work")
        #expect(relative.folder == "/opt/apps/example/work")
        #expect(
            tool.argv(filePath: "/in/x", type: "public.png") == [
                "/opt/apps/example/bin/import", "--file=/in/x", "public.png", "100%", "/in/x/in/x",
            ])

        guard
            case .command(let home) = try command(
                "<array><string>~/bin/tool</string><string>%f</string></array>",
                extra: "<key>Timeout</key><string>45</string>")
        else {
            Issue.record("expected a command")
            return
        }
        #expect(home.program == "/home/ada/bin/tool")
        #expect(home.timeout == .seconds(45))
    }

    @Test(arguments: [
        ("<string>beertracker --import %f</string>", ImporterError.shellCommandLine("beertracker --import %f")),
        (
            "<array><string>sh</string><string>-c</string><string>cat %f</string></array>",
            .shellInvocation(program: "sh")
        ),
        (
            "<array><string>/bin/bash</string><string>-ec</string><string>cat %f</string></array>",
            .shellInvocation(program: "/bin/bash")
        ),
        ("<array><string>beer tracker</string><string>%f</string></array>", .shellCommandLine("beer tracker")),
        ("<array><string>tool;rm</string><string>%f</string></array>", .invalidProgram("tool;rm")),
        ("<array><string>$(evil)</string><string>%f</string></array>", .invalidProgram("$(evil)")),
        ("<array><string></string><string>%f</string></array>", .invalidProgram("")),
        ("<array><string>tool</string><string>--import</string></array>", .missingFilePlaceholder),
        ("<array><string>tool</string></array>", .missingFilePlaceholder),
        ("<array><string>tool</string><string>%x</string><string>%f</string></array>", .unknownPlaceholder("%x")),
        ("<array/>", .missingArguments),
        ("<dict/>", .missingArguments),
    ])
    func rejectedCommands(arguments: String, error: ImporterError) {
        #expect(throws: error) { try command(arguments) }
    }

    @Test func rejectedTimeoutsAndFolders() {
        let argv = "<array><string>tool</string><string>%f</string></array>"
        #expect(throws: ImporterError.invalidTimeout("0.0")) {
            try command(argv, extra: "<key>Timeout</key><integer>0</integer>")
        }
        #expect(throws: ImporterError.invalidTimeout("99999.0")) {
            try command(argv, extra: "<key>Timeout</key><integer>99999</integer>")
        }
        #expect(throws: ImporterError.invalidTimeout("soon")) {
            try command(argv, extra: "<key>Timeout</key><string>soon</string>")
        }
        #expect(throws: ImporterError.missingKind) { try importer("<key>Folder</key><string>x</string>") }
        #expect(throws: ImporterError.unknownKind("teleport")) { try folderImporter("teleport", "x") }
        #expect(throws: ImporterError.missingFolder(kind: "copy")) {
            try importer("<key>Kind</key><string>copy</string>")
        }
        #expect(throws: ImporterError.self) { try folderImporter("copy", "$HOME/in") }
        #expect(throws: ImporterError.self) { try folderImporter("move", "~bob/in") }
        #expect(throws: ImporterError.self) { try folderImporter("move", "  ") }
        let message = ImporterError.shellCommandLine("a b").description
        #expect(message.contains("without a shell"))
    }

    @Test func registrationValidatesIdentityAndImporter() throws {
        let beer = try Fixtures.app(Fixtures.beerTracker)
        #expect(beer.applicationID == "com.example.beertracker")
        #expect(beer.name == "BeerTracker")
        let custom = try Fixtures.app(Fixtures.customFile)
        // The two importers share one app-group folder.
        #expect(beer.importer?.folder == "/home/ada/Library/Group Containers/group.com.example.shared")
        #expect(custom.importer?.folder == beer.importer?.folder)

        #expect(throws: RegistrationError.missingApplicationIdentifier) { try Fixtures.app("") }
        #expect(throws: RegistrationError.invalidApplicationIdentifier("my app")) {
            try Fixtures.app("<key>CFBundleIdentifier</key><string>my app</string>")
        }
        #expect(throws: RegistrationError.missingImporter(applicationID: "com.example.noimporter")) {
            try Fixtures.app(
                """
                <key>CFBundleIdentifier</key><string>com.example.noimporter</string>
                <key>CFBundleDocumentTypes</key><array><dict><key>LSItemContentTypes</key><array><string>public.png</string></array></dict></array>
                """)
        }
        #expect(
            throws: RegistrationError.invalidImporter(applicationID: "com.example.bad", .missingFolder(kind: "move"))
        ) {
            try Fixtures.app(
                "<key>CFBundleIdentifier</key><string>com.example.bad</string><key>ShareImporter</key><dict><key>Kind</key><string>move</string></dict>"
            )
        }
        // A types-only manifest needs no importer; its name falls back to the identifier.
        let typesOnly = try Fixtures.app(
            """
            <key>CFBundleIdentifier</key><string>com.example.typesonly</string>
            <key>UTExportedTypeDeclarations</key><array><dict><key>UTTypeIdentifier</key><string>com.example.typesonly.t</string>
            <key>UTTypeConformsTo</key><array><string>public.data</string></array></dict></array>
            """)
        #expect(typesOnly.importer == nil)
        #expect(typesOnly.name == "com.example.typesonly")
        let noneRank = try Fixtures.app(
            """
            <key>CFBundleIdentifier</key><string>com.example.noneonly</string>
            <key>CFBundleDocumentTypes</key><array><dict><key>LSItemContentTypes</key><array><string>public.png</string></array>
            <key>LSHandlerRank</key><string>None</string></dict></array>
            """)
        #expect(noneRank.importer == nil)
        #expect(RegistrationError.missingImporter(applicationID: "x").description.contains("ShareImporter"))
    }

    @Test func registrationFromAFileResolvesPathsAgainstItsDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "apps-\(UUID().uuidString)/BeerTracker")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let file = directory.appendingPathComponent("Info.plist")
        try Fixtures.plist(Fixtures.beerTracker).write(to: file)
        let registration = try ApplicationRegistration.load(
            manifestAt: file.path, homeDirectory: "/home/ada", registeredAt: Date(timeIntervalSince1970: 0))
        guard case .command(let command) = registration.importer else {
            Issue.record("BeerTracker imports with a command")
            return
        }
        #expect(command.program == directory.appendingPathComponent("bin/beertracker-import").path)
        #expect(command.timeout == .seconds(30))
        #expect(registration.registeredAt == Date(timeIntervalSince1970: 0))
        #expect(throws: ManifestError.self) {
            try ApplicationRegistration.load(manifestAt: "/nonexistent/Info.plist", homeDirectory: "/home/ada")
        }
    }

    @Test func registrationsRoundTripThroughJSON() throws {
        let notebook =
            InspectionTests.manifest
            + "<key>ShareImporter</key><dict><key>Kind</key><string>move</string><key>Folder</key><string>N</string></dict>"
        for body in [Fixtures.scaryBugs, Fixtures.beerTracker, Fixtures.customFile, notebook] {
            let registration = try Fixtures.app(body, at: 42)
            let data = try JSONEncoder().encode(registration)
            let decoded = try JSONDecoder().decode(ApplicationRegistration.self, from: data)
            #expect(decoded == registration)
        }
    }
}
