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
                      "extensions": [],
                      "mimeTypes": [],
                      "osTypes": [],
                      "isPackage": null,
                      "documentClass": null,
                      "exportableTypes": [],
                      "icons": []
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
                       after 1 by tie at rank Owner: com.example.paint was registered earlier
                  conflicts:
                    conflicting owners: com.example.paint and com.example.draw both claim public.png at rank Owner (public.png); com.example.paint wins: com.example.paint was registered earlier

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
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 32))
        _ = FileManager.default.createFile(atPath: dir.at("photo.png"), contents: png)
        _ = FileManager.default.createFile(atPath: dir.at("photo.jpg"), contents: png)

        let text = await bob.run(["types", "resolve", dir.at("notes.txt")])
        #expect(
            text.stdout == """
                notes.txt: public.plain-text (from the file name)
                  MIME type:    text/plain
                  conforms to:  public.plain-text → public.text → public.data → public.item
                                public.plain-text → public.text → public.content
                  goes to:      the receive folder (no registered application imports public.plain-text)

                """)
        func resolved(_ file: String) async throws -> [String: Any] {
            let output = await bob.run(["types", "resolve", dir.at(file), "--json"]).stdout
            return try #require(jsonObject(output.replacingOccurrences(of: "\n", with: "")))
        }
        let picture = try await resolved("photo.png")
        #expect(picture["type"] as? String == "public.png")
        #expect(picture["mimeType"] as? String == "image/png")
        #expect(picture["destination"] as? String == "application")
        #expect((picture["handler"] as? [String: Any])?["applicationID"] as? String == "com.example.paint")
        // PNG bytes named .jpg: one glob match settles the type (as gio), the content is not read.
        let misnamed = try await resolved("photo.jpg")
        #expect(misnamed["type"] as? String == "public.jpeg")
        #expect(misnamed["mimeType"] as? String == "image/jpeg")
        #expect(misnamed["basis"] as? String == "fileName")
        #expect(misnamed["contradiction"] is NSNull)
        #expect((misnamed["warnings"] as? [String])?.first == "photo.jpg: named .jpg but its content is a PNG image; it is not handed to an importer")
        // A PDF named .png would reach Paint, which imports PNG: it stays in the inbox instead.
        _ = FileManager.default.createFile(atPath: dir.at("scan.png"), contents: Data("%PDF-1.7\n".utf8 + png))
        let forged = try await resolved("scan.png")
        #expect(forged["destination"] as? String == "inbox")
        #expect(forged["handler"] is NSNull)
        #expect(forged["reason"] as? String == "named .png but its content is a PDF document, so Paint did not get it")
        #expect(
            await bob.run(["types", "resolve", dir.at("scan.png")]).stdout.contains(
                "  stays in:     the inbox (named .png but its content is a PDF document, so Paint did not get it)\n"))
        let missing = await bob.run(["types", "resolve", dir.at("nope.bin")])
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: cannot read '\(dir.at("nope.bin"))': No such file or directory\n")
    }

    /// Real files of this system, many in one call, as gio types them (Debian 12 packages the
    /// Makefile installs: shared-mime-info, libarchive-dev, and essential ones).
    @Test func resolveTakesManyRealFilesInOneCallAndPrintsMIMETypes() async throws {
        let dir = TemporaryDirectory("types-resolve-many")
        let bob = TestMachine("bob", in: dir)
        let expected = [
            ("/usr/share/mime/packages/freedesktop.org.xml", "application/xml"),
            ("/usr/share/mime/mime.cache", "application/octet-stream"),
            ("/usr/bin/ls", "application/x-executable"),
            ("/usr/bin/zcat", "application/x-shellscript"),
            ("/usr/include/archive.h", "text/x-chdr"),
            ("/usr/share/common-licenses/GPL-3", "text/plain"),
            ("/usr/share/perl5/Debconf/Log.pm", "application/x-perl"),
            ("/etc/os-release", "text/plain"),
        ]
        let result = await bob.run(["types", "resolve", "--mime"] + expected.map(\.0))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == expected.map { "\($0.0): \($0.1)\n" }.joined())
        // JSON: one object per line when there are several files.
        let json = await bob.run(["types", "resolve", "--json", "/usr/bin/ls", "/usr/bin/zcat"])
        let lines = jsonLines(json.stdout)
        #expect(lines.count == 2)
        #expect(lines.map { $0["mimeType"] as? String } == ["application/x-executable", "application/x-shellscript"])
        #expect(lines.map { $0["isExecutable"] as? Bool } == [true, true])
        #expect(lines.map { $0["destination"] as? String } == ["receiveFolder", "receiveFolder"])
        // A missing file among others: the others are resolved, the error is reported, status 1.
        let partly = await bob.run(["types", "resolve", "--mime", "/etc/os-release", dir.at("gone"), "/usr/bin/ls"])
        #expect(partly.status == 1)
        #expect(partly.stdout == "/etc/os-release: text/plain\n/usr/bin/ls: application/x-executable\n")
        #expect(partly.stderr == "Error: cannot read '\(dir.at("gone"))': No such file or directory\n")
        let usage = await bob.run(["types", "resolve", "--mime", "--json", "/usr/bin/ls"])
        #expect(usage.status == 64)
    }

    /// Real-world-shaped manifests from Xcode projects: refused without an identifier, accepted with
    /// --bundle-id, never shown as $(PRODUCT_NAME).
    @Test func registerAnXcodeManifest() async throws {
        let dir = TemporaryDirectory("types-xcode")
        let bob = TestMachine("bob", in: dir)
        let manifest = Self.paint(id: "$(PRODUCT_BUNDLE_IDENTIFIER)")
            .replacingOccurrences(
                of: "<key>CFBundleName</key><string>Paint</string>",
                with: "<key>CFBundleName</key><string>$(PRODUCT_NAME)</string>")
            .replacingOccurrences(
                of: "  <key>UTExportedTypeDeclarations</key>",
                with: "#ifdef DEBUG\n  <key>NSZombieEnabled</key><true/>\n#endif\n  <key>UTExportedTypeDeclarations</key>")
        FileTree.writeText(dir.at("Info.plist"), manifest)
        let refused = await bob.run(["types", "register", dir.at("Info.plist")])
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "Error: CFBundleIdentifier is '$(PRODUCT_BUNDLE_IDENTIFIER)': $(PRODUCT_BUNDLE_IDENTIFIER) is an Xcode build setting, filled in only when Xcode builds the app. Give the application's identifier with --bundle-id, e.g. 'share types register Info.plist --bundle-id com.example.myapp'.\n"
        )
        let inspected = await bob.run(["types", "inspect", dir.at("Info.plist")])
        #expect(inspected.status == 0)
        #expect(inspected.stdout.hasPrefix("($(PRODUCT_BUNDLE_IDENTIFIER))\n"), "no name, never $(PRODUCT_NAME)")
        #expect(inspected.stdout.contains("  warning: line 5: '#ifdef DEBUG' is a preprocessor line"))
        #expect(inspected.stdout.contains("  warning: line 7: '#endif' is a preprocessor line"))
        let registered = await bob.run([
            "types", "register", dir.at("Info.plist"), "--bundle-id", "com.example.paint",
        ])
        #expect(registered.status == 0, "\(registered.stderr)")
        #expect(registered.stdout.hasPrefix("Registered \"com.example.paint\" (com.example.paint).\n"))
        #expect(!registered.stdout.contains("$(") && !registered.stderr.contains("Registered \"$("))
        #expect(registered.stderr.contains("Warning: CFBundleName: '$(PRODUCT_NAME)' is an Xcode build setting"))
        let listed = await bob.run(["types", "list"])
        #expect(listed.stdout.hasPrefix("com.example.paint \"com.example.paint\"\n"))
    }

    /// Rule 1 and 2 through the CLI: a collision is reported at register and by show, and show says
    /// which rule put each handler where it is.
    @Test func registerAndShowReportCollisionsAndDecidingRules() async throws {
        let dir = TemporaryDirectory("types-collision")
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("Paint.plist"), Self.paint())
        let other = Self.paint(id: "com.example.pixels", name: "Pixels").replacingOccurrences(
            of: "com.example.paint.picture", with: "com.example.pixels.picture")
        FileTree.writeText(dir.at("Pixels.plist"), other)
        #expect(await bob.run(["types", "register", dir.at("Paint.plist")]).stderr == Self.warnings.map { "Warning: \($0)\n" }.joined())
        let second = await bob.run(["types", "register", dir.at("Pixels.plist")])
        #expect(second.status == 0)
        let collision =
            "extension collision: .pnt is claimed by com.example.paint.picture (app com.example.paint (exported)) and "
            + "com.example.pixels.picture (app com.example.pixels (exported)); a file named *.pnt gets the type its "
            + "content's magic matches, otherwise com.example.paint.picture"
        #expect(second.stderr.contains("Warning: \(collision)\n"))
        let shown = await bob.run(["types", "show", ".pnt"])
        #expect(shown.stdout.contains("  conflicts:\n    \(collision)\n"))
        let png = await bob.run(["types", "show", "public.png"])
        #expect(png.stdout.contains("       after 1 by tie at rank Owner: com.example.paint was registered earlier\n"))
    }
}
