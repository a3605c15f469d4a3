import Foundation
import Testing

@testable import TypeRegistry

@Suite struct RegistryTests {
    private func exporting(
        _ app: String, _ type: String, parents: [String] = ["public.data"], ext: [String] = [], imported: Bool = false,
        at seconds: TimeInterval
    ) throws -> ApplicationRegistration {
        let key = imported ? "UTImportedTypeDeclarations" : "UTExportedTypeDeclarations"
        return try Fixtures.app(
            """
            <key>CFBundleIdentifier</key><string>\(app)</string>
            <key>\(key)</key><array><dict>
                <key>UTTypeIdentifier</key><string>\(type)</string>
                <key>UTTypeConformsTo</key><array>\(parents.map { "<string>\($0)</string>" }.joined())</array>
                <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><array>\(ext.map { "<string>\($0)</string>" }.joined())</array></dict>
            </dict></array>
            """, at: seconds)
    }

    @Test func exampleAppsJoinTheGraph() throws {
        let registry = ResolutionTests.registry
        #expect(
            registry.applications.map(\.applicationID) == [
                "com.example.scarybugs", "com.example.beertracker", "com.example.customfile",
            ])
        #expect(registry.conforms("com.example.scarybugs.sbz", to: "org.gnu.gnu-zip-archive"))
        #expect(registry.conforms("com.example.beertracker.btkr", to: "public.xml"))
        #expect(registry.conforms("com.example.customfile.mtt", to: "public.zip-archive"))
        #expect(registry.preferredType(forMIMEType: "application/beertracker") == "com.example.beertracker.btkr")
        #expect(
            registry.record(for: "com.example.scarybugs.sbz")?.origin
                == .application(id: "com.example.scarybugs", declaration: .exported))
        #expect(registry.types(conformingTo: "org.gnu.gnu-zip-archive").contains("com.example.scarybugs.sbz"))
        #expect(registry.warnings.isEmpty, "\(registry.warnings)")
    }

    @Test func exportedBeatsImportedAndTheFirstExporterWins() throws {
        let importer = try exporting(
            "com.example.importer", "com.example.fmt", parents: ["public.text"], ext: ["fmt", "fmt2"], imported: true,
            at: 1)
        let first = try exporting(
            "com.example.first", "com.example.fmt", parents: ["public.image"], ext: ["fmt"], at: 5)
        let second = try exporting("com.example.second", "com.example.fmt", parents: ["public.audio"], at: 9)
        let registry = TypeRegistry(applications: [second, importer, first])
        let record = try #require(registry.record(for: "com.example.fmt"))
        #expect(record.conformsTo == [.image])
        #expect(record.filenameExtensions == ["fmt"])
        #expect(record.origin == .application(id: "com.example.first", declaration: .exported))
        #expect(
            registry.warnings.map(\.message) == [
                "'com.example.fmt' is exported by com.example.first and com.example.second; com.example.first's declaration (registered first) is used"
            ])
        #expect(
            registry.explain("com.example.fmt")?.declarers.filter(\.isInUse).map(\.origin) == [
                .application(id: "com.example.first", declaration: .exported)
            ])

        // With only imported copies, the first is used and the tags are merged.
        let other = try exporting(
            "com.example.other", "com.example.fmt", parents: ["public.plain-text"], ext: ["fmt3"], imported: true, at: 2
        )
        let imports = TypeRegistry(applications: [other, importer])
        let merged = try #require(imports.record(for: "com.example.fmt"))
        #expect(merged.conformsTo == [.text])
        #expect(merged.filenameExtensions == ["fmt", "fmt2", "fmt3"])
        #expect(imports.warnings.first?.message.contains("disagree") == true)
        // Unregistering the owner leaves the imported declaration.
        let afterwards = TypeRegistry(applications: [importer, first]).unregistering(applicationID: "COM.EXAMPLE.FIRST")
        #expect(
            afterwards.record(for: "com.example.fmt")?.origin
                == .application(id: "com.example.importer", declaration: .imported))
        #expect(afterwards.applications.map(\.applicationID) == ["com.example.importer"])
        #expect(afterwards.unregistering(applicationID: "com.example.importer").record(for: "com.example.fmt") == nil)
    }

    @Test func systemTypesCannotBeTakenOver() throws {
        let squatter = try exporting(
            "com.example.squatter", "public.jpeg", parents: ["public.text"], ext: ["jpg"], at: 1)
        let pdf = try exporting("com.example.pdfthief", "com.adobe.pdf", parents: ["public.text"], at: 2)
        let registry = TypeRegistry(applications: [squatter, pdf])
        #expect(registry.record(for: "public.jpeg")?.origin == .builtin)
        #expect(registry.conforms("public.jpeg", to: .image))
        #expect(!registry.conforms("com.adobe.pdf", to: .text))
        #expect(squatter.manifest.warnings.contains { $0.message.contains("treated as imported") })
        #expect(
            registry.warnings.contains {
                $0.message.contains("com.example.pdfthief exports 'com.adobe.pdf', a system type")
            })
    }

    @Test func danglingParentsAndCrossApplicationCycles() throws {
        let dangling = try exporting(
            "com.example.dangling", "com.example.orphan", parents: ["com.nobody.parent"], ext: ["orph"], at: 1)
        let a = try exporting("com.example.a", "com.example.ta", parents: ["com.example.tb"], at: 2)
        let b = try exporting("com.example.b", "com.example.tb", parents: ["com.example.ta"], at: 3)
        let registry = TypeRegistry(sharedMimeInfo: Fixtures.database, applications: [dangling, a, b])
        #expect(registry.conforms("com.example.orphan", to: .data))
        #expect(registry.conforms("com.example.orphan", to: "com.nobody.parent"))
        #expect(
            registry.warnings.contains {
                $0.message == "'com.example.orphan' conforms to 'com.nobody.parent', which nobody declares"
            })
        #expect(
            registry.warnings.contains {
                $0.message.contains("conformance cycle com.example.ta → com.example.tb → com.example.ta")
            })
        #expect(
            registry.warnings.map(\.kind) == [.danglingParent, .conformanceCycle, .implicitParent, .implicitParent])
        #expect(registry.conforms("com.example.ta", to: "com.example.tb"))
        #expect(!registry.conforms("com.example.tb", to: "com.example.ta"))
        #expect(registry.conforms("com.example.tb", to: .item))
        #expect(
            registry.resolve(ResolutionRequest(fileName: "x.orph", content: Fixtures.Bytes.random)).type
                == "com.example.orphan")
    }

    @Test func nameMatchingPrefersSystemThenExportedThenDatabase() throws {
        let xcf = try exporting(
            "com.example.gimpish", "com.example.xcf", parents: ["public.image"], ext: ["xcf"], at: 1)
        let objc = try exporting(
            "com.example.matlabish", "com.example.m", parents: ["public.plain-text"], ext: ["m"], at: 2)
        let registry = TypeRegistry(sharedMimeInfo: Fixtures.database, applications: [xcf, objc])
        // The app's type and shared-mime-info's image/x-xcf are one type: the app declares its extension.
        #expect(registry.types(forFileName: "art.xcf") == ["com.example.xcf"])
        #expect(registry.record(for: "com.example.xcf")?.mimeTypes == ["image/x-xcf"])
        #expect(!registry.isDeclared("mime.image.x-xcf"))
        #expect(
            registry.types(forFileName: "a.m") == ["public.objective-c-source", "com.example.m", "mime.text.x-matlab"])
    }

    @Test func reRegisteringReplacesAnApplication() throws {
        let v1 = try exporting("com.example.app", "com.example.v1", at: 1)
        let v2 = try exporting("COM.EXAMPLE.APP", "com.example.v2", at: 2)
        let registry = TypeRegistry(applications: [v1]).registering(v2)
        #expect(registry.applications.count == 1)
        #expect(registry.isDeclared("com.example.v2"))
        #expect(!registry.isDeclared("com.example.v1"))
        #expect(registry.application("com.example.app")?.applicationID == "COM.EXAMPLE.APP")
        #expect(registry.isDeclared("public.jpeg"))
    }

    @Test func claimsOfUndeclaredTypesAreReported() throws {
        let registry = TypeRegistry(applications: [
            try Fixtures.claimingApp("com.example.dreamer", types: ["com.example.nonexistent"])
        ])
        #expect(
            registry.warnings.map(\.message) == [
                "com.example.dreamer claims 'com.example.nonexistent', which no registered type declares; only files of exactly that type can match"
            ])
    }

    @Test func aRegistryIsASendableValue() async throws {
        let registry = ResolutionTests.registry
        let types = await withTaskGroup(of: TypeIdentifier.self) { group in
            for name in ["a.png", "b.pdf", "c.sbz", "d.btkr"] {
                group.addTask { registry.resolve(ResolutionRequest(fileName: name)).type }
            }
            var result: Set<TypeIdentifier> = []
            for await type in group { result.insert(type) }
            return result
        }
        #expect(types == ["public.png", "com.adobe.pdf", "com.example.scarybugs.sbz", "com.example.beertracker.btkr"])
    }

    @Test func typesDeclaredByAnApplication() {
        let registry = ResolutionTests.registry
        #expect(registry.types(declaredBy: "COM.EXAMPLE.SCARYBUGS").map(\.identifier) == ["com.example.scarybugs.sbz"])
        #expect(registry.types(declaredBy: "com.example.nobody").isEmpty)
    }

    @Test func longConformanceChainsAndHugeManifestsLoad() throws {
        let count = ManifestParser.maximumEntries + 10
        var entries = ""
        for index in 0..<count {
            let parent = index == 0 ? "public.data" : "com.example.chain.t\(index - 1)"
            entries +=
                "<dict><key>UTTypeIdentifier</key><string>com.example.chain.t\(index)</string><key>UTTypeConformsTo</key><string>\(parent)</string></dict>"
        }
        let manifest = try Fixtures.manifest(
            "<key>CFBundleIdentifier</key><string>com.example.chain</string><key>UTExportedTypeDeclarations</key><array>\(entries)</array>"
        )
        #expect(manifest.typeDeclarations.count == ManifestParser.maximumEntries)
        #expect(
            manifest.warnings.contains {
                $0.location == "UTExportedTypeDeclarations" && $0.message.contains("only the first 512")
            })
        let registry = TypeRegistry(applications: [
            try ApplicationRegistration(manifest: manifest, paths: Fixtures.paths)
        ])
        let last = TypeIdentifier("com.example.chain.t\(ManifestParser.maximumEntries - 1)")
        #expect(registry.conforms(last, to: "com.example.chain.t0"))
        #expect(registry.conformanceDistance(from: last, to: .data) == ManifestParser.maximumEntries)
    }

    @Test func magicMatchesToleratesAShortMask() {
        let match = MagicMatch(kind: .string, offsets: 0...0, value: [0x41, 0x42], mask: [0xFF])
        #expect(match.matches([0x41, 0x42]))
        #expect(!match.matches([0x41, 0x43]))
        #expect(!match.matches([0x41]))
    }
}
