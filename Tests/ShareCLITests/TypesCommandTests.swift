import Foundation
import ShareTestSupport
import Testing

/// `share types ...` as a user runs it: registering applications, reading manifests, looking up
/// types and handlers, resolving files.
@Suite(.serialized) struct TypesCommandTests {
    /// A messy but usable manifest: whitespace around an identifier, strings where lists belong.
    static func paint(id: String = "com.example.paint", name: String = "Paint") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
          <key>CFBundleIdentifier</key><string>\(id)</string>
          <key>CFBundleName</key><string>\(name)</string>
          <key>UTExportedTypeDeclarations</key><array><dict>
            <key>UTTypeIdentifier</key><string> com.example.paint.picture </string>
            <key>UTTypeConformsTo</key><string>public.image</string>
            <key>UTTypeTagSpecification</key><dict>
              <key>public.filename-extension</key><string>pnt</string></dict>
          </dict></array>
          <key>CFBundleDocumentTypes</key><array><dict>
            <key>CFBundleTypeName</key><string>Picture</string>
            <key>LSItemContentTypes</key><array><string>com.example.paint.picture</string><string>public.png</string></array>
            <key>LSHandlerRank</key><string>Owner</string>
          </dict></array>
          <key>ShareImporter</key><dict><key>Kind</key><string>copy</string><key>Folder</key><string>~/Pictures/\(name)</string></dict>
        </dict></plist>
        """
    }

    static let warnings = [
        "UTExportedTypeDeclarations[0].UTTypeIdentifier: surrounding whitespace in ' com.example.paint.picture ' is ignored",
        "UTExportedTypeDeclarations[0].UTTypeConformsTo: expected an array, found a string; read as a one-element list",
        "UTExportedTypeDeclarations[0].UTTypeTagSpecification.public.filename-extension: expected an array, found a string; read as a one-element list",
    ]

    @Test func registerPrintsWhatWasRegisteredAndWarnsAboutTheManifest() async throws {
        let dir = TemporaryDirectory("types-register")
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("Paint.plist"), Self.paint())

        let result = await bob.run(["types", "register", dir.at("Paint.plist")])

        #expect(result.status == 0)
        #expect(result.stderr == Self.warnings.map { "Warning: \($0)\n" }.joined())
        #expect(
            result.stdout == """
                Registered "Paint" (com.example.paint).
                  imports:  copy into ~/Pictures/Paint
                  declares: com.example.paint.picture (exported; .pnt)
                  handles:  com.example.paint.picture, public.png (Owner, Viewer)

                """)
        #expect(FileManager.default.fileExists(atPath: bob.dataHome + "/share/applications/com.example.paint.json"))
        let list = try #require(
            jsonObject(await bob.run(["types", "list", "--json"]).stdout.replacingOccurrences(of: "\n", with: "")))
        let app = try #require((list["applications"] as? [[String: Any]])?.first)
        #expect(app["id"] as? String == "com.example.paint")
        #expect((app["importer"] as? [String: Any])?["folder"] as? String == bob.home + "/Pictures/Paint")

        let removed = await bob.run(["types", "unregister", "com.example.paint"])
        #expect(removed.stdout == "Unregistered \"Paint\" (com.example.paint).\n")
        #expect(
            await bob.run(["types", "list"]).stdout
                == "No applications are registered. Register one with 'share types register MANIFEST'.\n")
        let again = await bob.run(["types", "unregister", "com.example.paint"])
        #expect(again.status == 1)
        #expect(
            again.stderr
                == "Error: no application 'com.example.paint' is registered; 'share types list' shows the registered applications\n"
        )
    }

    @Test func aShellCommandLineImporterIsRefused() async throws {
        let dir = TemporaryDirectory("types-refused")
        let bob = TestMachine("bob", in: dir)
        let text = Self.paint().replacingOccurrences(
            of: "<key>Kind</key><string>copy</string><key>Folder</key><string>~/Pictures/Paint</string>",
            with:
                "<key>Kind</key><string>command</string><key>Arguments</key><string>convert %f ~/x.png; rm -rf ~</string>"
        )
        FileTree.writeText(dir.at("Bad.plist"), text)
        let result = await bob.run(["types", "register", dir.at("Bad.plist")])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: com.example.paint: "))
        #expect(result.stderr.contains("convert %f ~/x.png; rm -rf ~"))
        #expect(await bob.run(["types", "list"]).stdout.hasPrefix("No applications are registered."))
    }

    @Test func inspectPrintsTheDeclarationsAsDeclared() async throws {
        let dir = TemporaryDirectory("types-inspect")
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("Paint.plist"), Self.paint())
        let result = await bob.run(["types", "inspect", dir.at("Paint.plist"), "--json"])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                {
                  "declaredTypes": [
                    {
                      "identifier": "com.example.paint.picture",
                      "declaration": "exported",
                      "conformsTo": [
                        "public.image"
                      ],
                      "extensions": [
                        "pnt"
                      ],
                      "mimeTypes": [],
                      "description": null,
                      "isPackage": false
                    }
                  ],
                  "documentTypes": [
                    {
                      "name": "Picture",
                      "role": null,
                      "rank": "Owner",
                      "contentTypes": [
                        "com.example.paint.picture",
                        "public.png"
                      ],
                      "extensions": []
                    }
                  ],
                  "warnings": [
                    "\(Self.warnings[0])",
                    "\(Self.warnings[1])",
                    "\(Self.warnings[2])"
                  ]
                }

                """)
        let human = await bob.run(["types", "inspect", dir.at("Paint.plist")])
        #expect(
            human.stdout.hasPrefix(
                "Paint (com.example.paint)\n  type com.example.paint.picture: exported; conforms to public.image; .pnt\n"
            ))
        let missing = await bob.run(["types", "inspect", dir.at("nope.plist"), "--json"])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("Error: Cannot read the manifest '\(dir.at("nope.plist"))'"))
    }

    @Test func showReportsHandlersByRankAndTheConflictsSettled() async throws {
        let dir = TemporaryDirectory("types-show")
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("Paint.plist"), Self.paint())
        FileTree.writeText(dir.at("Draw.plist"), Self.paint(id: "com.example.draw", name: "Draw"))
        #expect(await bob.run(["types", "register", dir.at("Paint.plist")]).status == 0)
        #expect(await bob.run(["types", "register", dir.at("Draw.plist")]).status == 0)

        let shown = await bob.run(["types", "show", ".png"])

        #expect(shown.status == 0)
        #expect(
            shown.stdout == """
                public.png
                  description:  PNG image
                  conforms to:  public.png → public.image → public.data → public.item
                                public.png → public.image → public.content
                  extensions:   .png
                  MIME types:   image/png
                  package:      no
                  declared by:  builtin, shared-mime-info (image/png) (not used)
                  handlers, best first:
                    1. "Paint" (com.example.paint): Owner, public.png; copy into ~/Pictures/Paint
                    2. "Draw" (com.example.draw): Owner, public.png; copy into ~/Pictures/Draw
                  conflicts:
                    conflicting owners: com.example.paint and com.example.draw both claim public.png at rank Owner (public.png); com.example.paint wins because it was registered earlier

                """)
        let json = try #require(
            jsonObject(
                await bob.run(["types", "show", "com.example.paint.picture", "--json"]).stdout.replacingOccurrences(
                    of: "\n", with: "")))
        #expect(
            (json["declaredBy"] as? [[String: Any]])?.map { $0["origin"] as? String } == [
                "app com.example.paint (exported)", "app com.example.draw (exported)",
            ])
        #expect(
            (json["handlers"] as? [[String: Any]])?.map { $0["applicationID"] as? String } == [
                "com.example.paint", "com.example.draw",
            ])
        #expect((json["handlers"] as? [[String: Any]])?.first?["exportsType"] as? Bool == true)
        let unknown = await bob.run(["types", "show", "com.example.nothing"])
        #expect(unknown.status == 1)
        #expect(
            unknown.stderr
                == "Error: no type 'com.example.nothing' is known; give an identifier (public.png), a MIME type (image/png) or an extension (.png)\n"
        )
    }

    @Test func resolveShowsTheTypeItsChainAndWhoWouldImportIt() async throws {
        let dir = TemporaryDirectory("types-resolve")
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("Paint.plist"), Self.paint())
        #expect(await bob.run(["types", "register", dir.at("Paint.plist")]).status == 0)
        FileTree.writeText(dir.at("notes.txt"), "plain words\n")
        _ = FileManager.default.createFile(
            atPath: dir.at("photo.jpg"),
            contents: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 32)))

        let text = await bob.run(["types", "resolve", dir.at("notes.txt")])
        #expect(
            text.stdout == """
                notes.txt: public.plain-text (from the file name)
                  conforms to:  public.plain-text → public.text → public.data → public.item
                                public.plain-text → public.text → public.content
                  goes to:      the receive folder (no registered application imports public.plain-text)

                """)
        let spoofed = try #require(
            jsonObject(
                await bob.run(["types", "resolve", dir.at("photo.jpg"), "--json"]).stdout.replacingOccurrences(
                    of: "\n", with: "")))
        #expect(spoofed["type"] as? String == "public.png")
        #expect(spoofed["basis"] as? String == "content")
        #expect(
            (spoofed["contradiction"] as? String)?.hasPrefix(
                "the name says public.jpeg but the content is image/png content") == true)
        #expect(spoofed["destination"] as? String == "application")
        #expect((spoofed["handler"] as? [String: Any])?["applicationID"] as? String == "com.example.paint")
        let missing = await bob.run(["types", "resolve", dir.at("nope.bin")])
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: cannot read '\(dir.at("nope.bin"))': No such file or directory\n")
    }
}
