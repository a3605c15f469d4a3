import Foundation
import Testing

@testable import TypeRegistry

@Suite struct ManifestTests {
    private func warning(_ manifest: ApplicationManifest, at location: String) -> ManifestWarning? {
        manifest.warnings.first { $0.location == location }
    }

    @Test func exampleManifestsLoadCleanly() throws {
        for body in [Fixtures.scaryBugs, Fixtures.beerTracker] {
            let manifest = try Fixtures.manifest(body)
            #expect(manifest.warnings.isEmpty, "\(manifest.warnings)")
            #expect(manifest.typeDeclarations.count == 1)
            #expect(manifest.handlerClaims.count == 1)
        }
        let scaryBugs = try Fixtures.manifest(Fixtures.scaryBugs)
        #expect(scaryBugs.bundleIdentifier == "com.example.scarybugs")
        #expect(scaryBugs.bundleName == "ScaryBugs")
        let type = try #require(scaryBugs.typeDeclarations.first)
        #expect(type.identifier == "com.example.scarybugs.sbz")
        #expect(type.conformsTo == ["org.gnu.gnu-zip-archive", "public.content"])
        #expect(type.filenameExtensions == ["sbz"])
        #expect(type.mimeTypes == ["application/x-scarybugs"])
        #expect(type.kind == .exported)
        let claim = try #require(scaryBugs.handlerClaims.first)
        #expect(claim.rank == .owner)
        #expect(claim.role == .editor)
        #expect(claim.contentTypes == ["com.example.scarybugs.sbz"])
        #expect(scaryBugs.importer?.kind == "unpack")
    }

    @Test func binaryPropertyListsLoadLikeXML() throws {
        let dictionary: [String: Any] = [
            "CFBundleIdentifier": "com.example.binary",
            "CFBundleName": "Binary",
            "UTExportedTypeDeclarations": [
                [
                    "UTTypeIdentifier": "com.example.binary.doc",
                    "UTTypeConformsTo": ["public.data", "public.content"],
                    "UTTypeDescription": "Binary document",
                    "UTTypeTagSpecification": [
                        "public.filename-extension": ["bdoc"], "public.mime-type": "application/x-bdoc",
                    ],
                ] as [String: Any]
            ],
            "CFBundleDocumentTypes": [
                [
                    "CFBundleTypeName": "Binary document", "CFBundleTypeRole": "Editor", "LSHandlerRank": "Owner",
                    "LSItemContentTypes": ["com.example.binary.doc"], "LSTypeIsPackage": false,
                ] as [String: Any]
            ],
            "ShareImporter": ["Kind": "copy", "Folder": "Inbox"],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
        #expect(data.starts(with: Array("bplist00".utf8)))
        let manifest = try ApplicationManifest.parse(data)
        #expect(manifest.bundleIdentifier == "com.example.binary")
        let type = try #require(manifest.typeDeclarations.first)
        #expect(type.identifier == "com.example.binary.doc")
        #expect(type.conformsTo == [.data, .content])
        #expect(type.filenameExtensions == ["bdoc"])
        #expect(type.mimeTypes == ["application/x-bdoc"])
        #expect(manifest.handlerClaims.first?.rank == .owner)
        #expect(manifest.handlerClaims.first?.isPackage == false)
        // The single MIME string is the only irregularity.
        #expect(
            manifest.warnings.map(\.location) == [
                "UTExportedTypeDeclarations[0].UTTypeTagSpecification.public.mime-type"
            ])
        let registration = try ApplicationRegistration(manifest: manifest, paths: Fixtures.paths)
        #expect(registration.importer == .copy(folder: "/opt/apps/example/Inbox"))
    }

    @Test func aStringWhereAnArrayBelongsIsAOneElementList() throws {
        let manifest = try Fixtures.manifest(
            """
            <key>CFBundleIdentifier</key><string>com.example.strings</string>
            <key>UTExportedTypeDeclarations</key><array><dict>
                <key>UTTypeIdentifier</key><string>com.example.strings.doc</string>
                <key>UTTypeConformsTo</key><string>public.text</string>
                <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><string>sdoc</string></dict>
            </dict></array>
            <key>CFBundleDocumentTypes</key><dict>
                <key>LSItemContentTypes</key><string>com.example.strings.doc</string>
                <key>CFBundleTypeExtensions</key><string>sdoc</string>
            </dict>
            """)
        let type = try #require(manifest.typeDeclarations.first)
        #expect(type.conformsTo == [.text])
        #expect(type.filenameExtensions == ["sdoc"])
        #expect(manifest.handlerClaims.first?.contentTypes == ["com.example.strings.doc"])
        #expect(manifest.handlerClaims.first?.filenameExtensions == ["sdoc"])
        for location in [
            "UTExportedTypeDeclarations[0].UTTypeConformsTo",
            "UTExportedTypeDeclarations[0].UTTypeTagSpecification.public.filename-extension",
            "CFBundleDocumentTypes", "CFBundleDocumentTypes[0].LSItemContentTypes",
            "CFBundleDocumentTypes[0].CFBundleTypeExtensions",
        ] {
            #expect(
                warning(manifest, at: location)?.message.contains("one-element list") == true,
                "\(location): \(manifest.warnings)")
        }
    }

    @Test func strayWhitespaceIsTrimmedWithAWarning() throws {
        let manifest = try Fixtures.manifest(
            """
            <key>CFBundleIdentifier</key><string> com.example.spaces </string>
            <key>UTImportedTypeDeclarations</key><array><dict>
                <key>UTTypeIdentifier</key><string>com.example.spaces.doc\t</string>
                <key>UTTypeConformsTo</key><array><string>
                    public.data
                </string></array>
                <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><array><string> spc </string></array></dict>
            </dict></array>
            """)
        #expect(manifest.bundleIdentifier == "com.example.spaces")
        let type = try #require(manifest.typeDeclarations.first)
        #expect(type.identifier.rawValue == "com.example.spaces.doc")
        #expect(type.conformsTo == [.data])
        #expect(type.filenameExtensions == ["spc"])
        #expect(type.kind == .imported)
        #expect(warning(manifest, at: "CFBundleIdentifier")?.message.contains("whitespace") == true)
        #expect(
            warning(manifest, at: "UTImportedTypeDeclarations[0].UTTypeIdentifier")?.message.contains("whitespace")
                == true)
        #expect(warning(manifest, at: "UTImportedTypeDeclarations[0].UTTypeConformsTo[0]") != nil)
        #expect(
            warning(manifest, at: "UTImportedTypeDeclarations[0].UTTypeTagSpecification.public.filename-extension[0]")
                != nil)
        #expect(manifest.declaredTypes.first?.identifier == "com.example.spaces.doc")
    }

    @Test func mixedCaseKeysValuesAndDuplicateTags() throws {
        let manifest = try Fixtures.manifest(
            """
            <key>CFBundleIdentifier</key><string>com.example.Case</string>
            <key>UTExportedTypeDeclarations</key><array><dict>
                <key>uttypeidentifier</key><string>Com.Example.Case.CBZ</string>
                <key>UTTypeConformsTo</key><array><string>Public.Data</string></array>
                <key>UTTypeTagSpecification</key><dict>
                    <key>Public.Filename-Extension</key><array><string>cbz</string><string>CBZ</string><string>.Cbz2</string></array>
                    <key>public.mime-type</key><array><string>Application/X-CBZ</string><string>application/x-cbz</string></array>
                </dict>
            </dict></array>
            <key>CFBundleDocumentTypes</key><array><dict>
                <key>LSItemContentTypes</key><array><string>com.example.case.cbz</string></array>
                <key>LSHandlerRank</key><string>owner</string>
                <key>CFBundleTypeRole</key><string>EDITOR</string>
            </dict></array>
            """)
        let type = try #require(manifest.typeDeclarations.first)
        #expect(type.identifier == "com.example.case.cbz")
        #expect(type.identifier.rawValue == "Com.Example.Case.CBZ")
        #expect(type.conformsTo == [.data])
        #expect(type.filenameExtensions == ["cbz", "cbz2"])
        #expect(type.mimeTypes == ["application/x-cbz"])
        let claim = try #require(manifest.handlerClaims.first)
        #expect(claim.rank == .owner)
        #expect(claim.role == .editor)
        let locations = manifest.warnings.map(\.location)
        #expect(locations.contains("UTExportedTypeDeclarations[0].uttypeidentifier"))
        #expect(locations.contains("UTExportedTypeDeclarations[0].UTTypeTagSpecification.Public.Filename-Extension"))
        #expect(locations.contains("UTExportedTypeDeclarations[0].UTTypeTagSpecification.public.filename-extension[1]"))
        #expect(locations.contains("UTExportedTypeDeclarations[0].UTTypeTagSpecification.public.filename-extension[2]"))
        #expect(locations.contains("UTExportedTypeDeclarations[0].UTTypeTagSpecification.public.mime-type[1]"))
        #expect(locations.contains("CFBundleDocumentTypes[0].LSHandlerRank"))
        #expect(locations.contains("CFBundleDocumentTypes[0].CFBundleTypeRole"))
    }

    @Test func aTypeListedAsItsOwnParentStillLoads() throws {
        let manifest = try Fixtures.manifest(
            """
            <key>UTExportedTypeDeclarations</key><array>
                <dict><key>UTTypeIdentifier</key><string>com.example.a</string><key>UTTypeConformsTo</key><array><string>public.data</string></array></dict>
                <dict><key>UTTypeIdentifier</key><string>com.example.b</string><key>UTTypeConformsTo</key><array><string>public.data</string></array></dict>
                <dict><key>UTTypeIdentifier</key><string>com.example.self</string>
                    <key>UTTypeConformsTo</key><array><string>COM.EXAMPLE.SELF</string><string>public.image</string></array></dict>
            </array>
            """)
        let type = try #require(manifest.typeDeclarations.last)
        #expect(type.conformsTo == [.image])
        #expect(
            warning(manifest, at: "UTExportedTypeDeclarations[2].UTTypeConformsTo[0]")?.message.contains("own parent")
                == true)
        #expect(manifest.declaredTypes[2].conformsTo == ["COM.EXAMPLE.SELF", "public.image"])
    }

    @Test func conformanceCyclesAreBrokenWithAWarning() throws {
        let manifest = try Fixtures.manifest(
            """
            <key>CFBundleIdentifier</key><string>com.example.cycles</string>
            <key>UTExportedTypeDeclarations</key><array>
                <dict><key>UTTypeIdentifier</key><string>com.example.a</string><key>UTTypeConformsTo</key><array><string>com.example.b</string></array></dict>
                <dict><key>UTTypeIdentifier</key><string>com.example.b</string><key>UTTypeConformsTo</key><array><string>com.example.c</string><string>public.data</string></array></dict>
                <dict><key>UTTypeIdentifier</key><string>com.example.c</string><key>UTTypeConformsTo</key><array><string>com.example.a</string></array></dict>
            </array>
            """)
        let cycle = try #require(manifest.warnings.first { $0.message.contains("cycle") })
        #expect(cycle.location == "UTExportedTypeDeclarations[2].UTTypeConformsTo")
        #expect(cycle.message.contains("com.example.a → com.example.b → com.example.c → com.example.a"))
        #expect(manifest.typeDeclarations.map(\.conformsTo) == [["com.example.b"], ["com.example.c", .data], [.data]])
        let registry = Fixtures.builtinRegistry.registering(
            try ApplicationRegistration(manifest: manifest, paths: Fixtures.paths))
        #expect(registry.conforms("com.example.a", to: .item))
        #expect(registry.conforms("com.example.c", to: .data))
    }

    @Test func aTypeDeclaredTwiceKeepsOneDeclaration() throws {
        let manifest = try Fixtures.manifest(
            """
            <key>UTImportedTypeDeclarations</key><array>
                <dict><key>UTTypeIdentifier</key><string>com.example.twice</string><key>UTTypeConformsTo</key><array><string>public.text</string></array></dict>
            </array>
            <key>UTExportedTypeDeclarations</key><array>
                <dict><key>UTTypeIdentifier</key><string>com.example.twice</string><key>UTTypeConformsTo</key><array><string>public.data</string></array></dict>
                <dict><key>UTTypeIdentifier</key><string>com.example.TWICE</string><key>UTTypeConformsTo</key><array><string>public.image</string></array></dict>
            </array>
            """)
        #expect(manifest.declaredTypes.count == 3)
        #expect(manifest.typeDeclarations.count == 1)
        #expect(manifest.typeDeclarations.first?.kind == .exported)
        #expect(manifest.typeDeclarations.first?.conformsTo == [.data])
        #expect(
            warning(manifest, at: "UTExportedTypeDeclarations[1]")?.message.contains(
                "already declared at UTExportedTypeDeclarations[0]") == true)
        #expect(warning(manifest, at: "UTImportedTypeDeclarations[0]")?.message.contains("ignored") == true)
    }

    @Test func wildcardClaimsLoadAndAreFlagged() throws {
        let manifest = try Fixtures.manifest(
            """
            <key>CFBundleDocumentTypes</key><array>
                <dict><key>CFBundleTypeExtensions</key><array><string>*</string></array></dict>
                <dict><key>LSItemContentTypes</key><array><string>public.data</string><string>public.png</string></array></dict>
                <dict><key>LSItemContentTypes</key><array><string>*</string></array></dict>
            </array>
            """)
        #expect(manifest.handlerClaims.count == 3)
        #expect(manifest.handlerClaims.allSatisfy { $0.isWildcard })
        #expect(manifest.handlerClaims[0].wildcardTypes == [.item])
        #expect(manifest.handlerClaims[1].wildcardTypes == [.data])
        #expect(manifest.handlerClaims[1].contentTypes == ["public.png"])
        #expect(
            warning(manifest, at: "CFBundleDocumentTypes[0].CFBundleTypeExtensions[0]")?.message.contains("wildcard")
                == true)
        #expect(
            warning(manifest, at: "CFBundleDocumentTypes[1].LSItemContentTypes[0]")?.message.contains("wildcard")
                == true)
        #expect(
            warning(manifest, at: "CFBundleDocumentTypes[2].LSItemContentTypes[0]")?.message.contains("wildcard")
                == true)
        // The inspect model keeps the values as declared.
        #expect(manifest.documentTypes[0].extensions == ["*"])
    }

    @Test func unusableValuesAreReportedWithTheirLocation() throws {
        let manifest = try Fixtures.manifest(
            """
            <key>CFBundleIdentifier</key><string>com.example.mess</string>
            <key>UTExportedTypeDeclarations</key><array>
                <string>not a dictionary</string>
                <dict><key>UTTypeConformsTo</key><array><string>public.data</string></array></dict>
                <dict><key>UTTypeIdentifier</key><string>com example bad</string></dict>
                <dict><key>UTTypeIdentifier</key><string>com.example.ok</string>
                    <key>UTTypeConformsTo</key><array><string>public.data</string><integer>7</integer><string></string><string>not valid</string></array>
                    <key>UTTypeTagSpecification</key><dict>
                        <key>public.filename-extension</key><array><string>*</string><string>a/b</string><string></string><string>ok</string></array>
                        <key>public.mime-type</key><array><string>nonsense</string><string>image/*</string></array>
                        <key>com.apple.ostype</key><string>OKAY</string>
                        <key>public.made-up-tag</key><string>x</string>
                    </dict>
                    <key>UTTypeDescrption</key><string>typo</string>
                </dict>
                <dict><key>UTTypeIdentifier</key><string>public.stolen</string><key>UTTypeConformsTo</key><array><string>public.data</string></array></dict>
                <dict><key>UTTypeIdentifier</key><string>dyn.ah62d4rv4ge81e2pw</string></dict>
                <dict><key>UTTypeIdentifier</key><string>com.example.orphan</string></dict>
            </array>
            <key>CFBundleDocumentTypes</key><array>
                <dict>
                    <key>LSItemContentTypes</key><array><string></string><string>com.example.ok</string><string>com.example.ok</string></array>
                    <key>LSHandlerRank</key><string>Primary</string>
                    <key>CFBundleTypeRole</key><string>Boss</string>
                    <key>LSTypeIsPackage</key><integer>1</integer>
                </dict>
                <dict><key>CFBundleTypeName</key><string>Nothing</string></dict>
                <dict><key>LSItemContentTypes</key><array><string>com.example.ok</string></array><key>LSTypeIsPackage</key><string>YES</string></dict>
            </array>
            <key>ShareImporter</key><string>copy</string>
            """)
        let expected: [(String, String)] = [
            ("UTExportedTypeDeclarations[0]", "expected a dictionary"),
            ("UTExportedTypeDeclarations[1]", "has no UTTypeIdentifier"),
            ("UTExportedTypeDeclarations[2].UTTypeIdentifier", "not a valid type identifier"),
            ("UTExportedTypeDeclarations[3].UTTypeConformsTo[1]", "expected a string"),
            ("UTExportedTypeDeclarations[3].UTTypeConformsTo[2]", "empty identifier"),
            ("UTExportedTypeDeclarations[3].UTTypeConformsTo[3]", "not a valid type identifier"),
            ("UTExportedTypeDeclarations[3].UTTypeTagSpecification.public.filename-extension[0]", "pattern"),
            (
                "UTExportedTypeDeclarations[3].UTTypeTagSpecification.public.filename-extension[1]",
                "cannot be a filename extension"
            ),
            ("UTExportedTypeDeclarations[3].UTTypeTagSpecification.public.filename-extension[2]", "empty extension"),
            ("UTExportedTypeDeclarations[3].UTTypeTagSpecification.public.mime-type[0]", "not a MIME type"),
            ("UTExportedTypeDeclarations[3].UTTypeTagSpecification.public.mime-type[1]", "wildcard"),
            ("UTExportedTypeDeclarations[3].UTTypeTagSpecification.public.made-up-tag", "unknown tag class"),
            ("UTExportedTypeDeclarations[3].UTTypeDescrption", "unknown key"),
            ("UTExportedTypeDeclarations[4].UTTypeIdentifier", "treated as imported"),
            ("UTExportedTypeDeclarations[5].UTTypeIdentifier", "dynamic identifiers"),
            ("UTExportedTypeDeclarations[6].UTTypeConformsTo", "conforms to nothing"),
            ("CFBundleDocumentTypes[0].LSItemContentTypes[0]", "empty identifier"),
            ("CFBundleDocumentTypes[0].LSItemContentTypes[2]", "listed twice"),
            ("CFBundleDocumentTypes[0].LSHandlerRank", "read as Default"),
            ("CFBundleDocumentTypes[0].CFBundleTypeRole", "read as Viewer"),
            ("CFBundleDocumentTypes[0].LSTypeIsPackage", "number 1"),
            ("CFBundleDocumentTypes[1]", "claims no usable type"),
            ("CFBundleDocumentTypes[2].LSTypeIsPackage", "string 'YES'"),
            ("ShareImporter", "expected a dictionary"),
        ]
        for (location, text) in expected {
            #expect(
                manifest.warnings.contains { $0.location == location && $0.message.contains(text) },
                "missing \(location): \(text)")
        }
        #expect(
            manifest.warnings.count == expected.count, "\(manifest.warnings.map(\.description).joined(separator: "\n"))"
        )
        #expect(
            manifest.typeDeclarations.map(\.identifier) == ["com.example.ok", "public.stolen", "com.example.orphan"])
        #expect(manifest.typeDeclarations[0].filenameExtensions == ["ok"])
        #expect(manifest.typeDeclarations[1].kind == .imported)
        #expect(manifest.typeDeclarations[2].conformsTo == [.data])
        #expect(manifest.handlerClaims.map(\.index) == [0, 2])
        #expect(manifest.handlerClaims[0].rank == .default)
        #expect(manifest.handlerClaims[0].role == .viewer)
        #expect(manifest.handlerClaims[0].isPackage)
        #expect(manifest.handlerClaims[0].contentTypes == ["com.example.ok"])
        #expect(manifest.importer == nil)
        #expect(manifest.declaredTypes.first { $0.identifier == "com.example.ok" }?.isPackage == true)
    }

    @Test func bytesThatAreNotAManifestThrow() throws {
        #expect(throws: ManifestError.self) { try ApplicationManifest.parse(Data("not <a plist".utf8)) }
        let array = try PropertyListSerialization.data(fromPropertyList: ["a", "b"], format: .xml, options: 0)
        #expect(throws: ManifestError.rootIsNotADictionary(found: "an array")) { try ApplicationManifest.parse(array) }
        #expect(throws: ManifestError.self) { try ApplicationManifest.load(contentsOfFile: "/nonexistent/Info.plist") }
        let huge = Data(count: ApplicationManifest.maximumSize + 1)
        #expect(throws: ManifestError.tooLarge(byteCount: huge.count, limit: ApplicationManifest.maximumSize)) {
            try ApplicationManifest.parse(huge)
        }
        // Arbitrary bytes never crash the parser.
        for seed in 0..<64 {
            let bytes = Data((0..<(seed * 7)).map { UInt8(truncatingIfNeeded: $0 &* (seed + 13) &+ 5) })
            _ = try? ApplicationManifest.parse(bytes)
        }
    }

    @Test func loadsFromAFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "TypeRegistryTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Info.plist")
        try Fixtures.plist(Fixtures.beerTracker).write(to: file)
        let manifest = try ApplicationManifest.load(contentsOfFile: file.path)
        #expect(manifest.bundleIdentifier == "com.example.beertracker")
    }
}
