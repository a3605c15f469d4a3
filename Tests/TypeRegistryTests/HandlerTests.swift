import Foundation
import Testing

@testable import TypeRegistry

@Suite struct HandlerTests {
    static func registry(_ apps: [ApplicationRegistration]) -> TypeRegistry {
        TypeRegistry(sharedMimeInfo: Fixtures.database, applications: apps)
    }

    private func ids(_ ranking: HandlerRanking) -> [String] { ranking.candidates.map(\.applicationID) }

    @Test func specificityThenRankThenWildcardsLast() throws {
        let registry = Self.registry([
            try Fixtures.claimingApp("com.example.viewer", types: ["public.image"], rank: "Owner", at: 10),
            try Fixtures.claimingApp("com.example.pngtool", types: ["public.png"], rank: "Alternate", at: 20),
            try Fixtures.claimingApp("com.example.pngeditor", types: ["public.png"], rank: "Default", at: 30),
            try Fixtures.claimingApp("com.example.anything", types: ["public.data"], rank: "Owner", at: 1),
            try Fixtures.claimingApp("com.example.star", extensions: ["*"], rank: "Owner", at: 2),
            try Fixtures.claimingApp("com.example.never", types: ["public.png"], rank: "None", at: 3),
            try Fixtures.claimingApp("com.example.declarer", types: ["public.png"], rank: "Owner", role: "None", at: 4),
        ])
        let png = registry.handlers(for: "public.png", fileName: "a.png")
        #expect(
            ids(png) == [
                "com.example.pngeditor", "com.example.pngtool", "com.example.viewer", "com.example.anything",
                "com.example.star",
            ])
        #expect(png.candidates[0].match == .contentType("public.png", distance: 0))
        #expect(png.candidates[1].match == .contentType("public.png", distance: 0))
        #expect(png.candidates[2].match == .contentType("public.image", distance: 1))
        #expect(png.candidates[3].match == .wildcard(.data))
        #expect(png.candidates[4].match == .wildcard(.item))
        #expect(png.excluded.map(\.applicationID) == ["com.example.never", "com.example.declarer"])
        #expect(png.conflicts.isEmpty)
        // Which rule put each handler after the one before it.
        #expect(
            png.decisions == [
                "",
                "rank: Default before Alternate, both claiming public.png",
                "specificity: com.example.pngtool claims public.png, more specific than com.example.viewer's "
                    + "public.image (1 step up), whatever the ranks (Alternate, Owner)",
                "specific claims before wildcards: com.example.anything claims any file (public.data)",
                "tie at rank Owner: com.example.anything was registered earlier",
            ])
        // A handler of public.image takes any image.
        #expect(
            ids(registry.handlers(for: "public.heic")) == [
                "com.example.viewer", "com.example.anything", "com.example.star",
            ])
    }

    /// LaunchServices binds the most specific claimed type of the conformance chain, then ranks.
    @Test func theMostSpecificClaimBeatsAHigherRank() throws {
        let registry = Self.registry([
            try Fixtures.claimingApp("com.example.imageowner", types: ["public.image"], rank: "Owner", at: 10),
            try Fixtures.claimingApp("com.example.pngdefault", types: ["public.png"], at: 5),
        ])
        let ranking = registry.handlers(for: "public.png")
        #expect(ids(ranking) == ["com.example.pngdefault", "com.example.imageowner"])
        #expect(ranking.decisions[1].hasPrefix("specificity: "))
    }

    /// Modelled on Vienna (`.viennastyle`), Sequel Pro (`.spbundle`) and IINA (`.iinaplugin`): each
    /// exports its package type and claims it; a file manager claims `public.directory` as Owner.
    @Test func anAppClaimingItsOwnPackageTypeBeatsADirectoryOwner() throws {
        let files = try Fixtures.claimingApp("com.example.files", types: ["public.directory"], rank: "Owner", at: 1)
        var apps = [files]
        for (index, (app, type, ext)) in [
            ("com.example.vienna", "com.example.vienna.style", "viennastyle"),
            ("com.example.sequelpro", "com.example.sequelpro.bundle", "spbundle"),
            ("com.example.iina", "com.example.iina.plugin", "iinaplugin"),
        ].enumerated() {
            apps.append(
                try Fixtures.claimingApp(
                    app, types: [type], rank: "Default", role: "Editor",
                    exports: Self.packageExport(type, ext: ext), at: TimeInterval(10 + index)))
        }
        let registry = Self.registry(apps)
        for (app, ext) in [
            ("com.example.vienna", "viennastyle"), ("com.example.sequelpro", "spbundle"),
            ("com.example.iina", "iinaplugin"),
        ] {
            let resolution = registry.resolve(ResolutionRequest(fileName: "Thing.\(ext)", isDirectory: true))
            #expect(resolution.isSafe)
            let ranking = registry.handlers(for: resolution.type)
            #expect(ids(ranking) == [app, "com.example.files"])
            #expect(ranking.conflicts.isEmpty)
            #expect(ranking.decisions[1].hasPrefix("specificity: \(app) claims \(resolution.type), more specific"))
            #expect(ranking.decisions[1].hasSuffix("whatever the ranks (Default, Owner)"))
        }
        // A plain folder still goes to the directory owner.
        let folder = registry.resolve(ResolutionRequest(fileName: "Photos", isDirectory: true))
        #expect(registry.handlers(for: folder.type).best?.applicationID == "com.example.files")
    }

    static func packageExport(_ type: String, ext: String) -> String {
        """
        <key>UTExportedTypeDeclarations</key><array><dict>
            <key>UTTypeIdentifier</key><string>\(type)</string>
            <key>UTTypeConformsTo</key><array><string>com.apple.package</string></array>
            <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><array><string>\(ext)</string></array></dict>
        </dict></array>
        """
    }

    @Test func conflictingOwnersAreSettledAndReported() throws {
        let exporterBody = """
            <key>UTExportedTypeDeclarations</key><array><dict>
                <key>UTTypeIdentifier</key><string>com.example.shared.doc</string>
                <key>UTTypeConformsTo</key><array><string>public.data</string></array>
                <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><array><string>shdoc</string></array></dict>
            </dict></array>
            """
        let early = try Fixtures.claimingApp(
            "com.example.early", types: ["com.example.shared.doc", "public.jpeg"], rank: "Owner", at: 1)
        let exporter = try Fixtures.claimingApp(
            "com.example.exporter", types: ["com.example.shared.doc"], rank: "Owner", exports: exporterBody, at: 50)
        let late = try Fixtures.claimingApp("com.example.late", types: ["public.jpeg"], rank: "Owner", at: 9)
        let registry = Self.registry([late, exporter, early])

        let doc = registry.handlers(for: "com.example.shared.doc")
        #expect(ids(doc) == ["com.example.exporter", "com.example.early"])
        #expect(doc.candidates[0].declaresType)
        #expect(
            doc.conflicts == [
                "conflicting owners: com.example.exporter and com.example.early both claim com.example.shared.doc at rank Owner (com.example.shared.doc); com.example.exporter wins: com.example.exporter exports com.example.shared.doc and com.example.early does not"
            ])

        let jpeg = registry.handlers(for: "public.jpeg")
        #expect(ids(jpeg) == ["com.example.early", "com.example.late"])
        #expect(jpeg.conflicts.first?.hasSuffix("com.example.early wins: com.example.early was registered earlier") == true)
        #expect(registry.warnings.contains { $0.type == "public.jpeg" && $0.message.contains("conflicting owners") })
    }

    /// When both owners export the type, the tie-break names the declaration in use, not "it exports the type".
    @Test func bothExportingOwnersAreToldApartByTheDeclarationInUse() throws {
        let body = """
            <key>UTExportedTypeDeclarations</key><array><dict>
                <key>UTTypeIdentifier</key><string>com.example.twin.doc</string>
                <key>UTTypeConformsTo</key><array><string>public.data</string></array>
            </dict></array>
            """
        let first = try Fixtures.claimingApp(
            "com.example.zfirst", types: ["com.example.twin.doc"], rank: "Owner", exports: body, at: 1)
        let second = try Fixtures.claimingApp(
            "com.example.asecond", types: ["com.example.twin.doc"], rank: "Owner", exports: body, at: 2)
        let registry = Self.registry([second, first])
        let ranking = registry.handlers(for: "com.example.twin.doc")
        #expect(ids(ranking) == ["com.example.zfirst", "com.example.asecond"])
        #expect(ranking.candidates.map(\.exportsType) == [true, true])
        #expect(ranking.candidates.map(\.declaresType) == [true, false])
        #expect(
            ranking.conflicts == [
                "conflicting owners: com.example.zfirst and com.example.asecond both claim com.example.twin.doc at rank Owner (com.example.twin.doc); com.example.zfirst wins: both export com.example.twin.doc; com.example.zfirst's declaration is the one in use (registered first)"
            ])
        #expect(
            registry.warnings.contains {
                $0.kind == .conflictingOwners
                    && $0.message.hasSuffix("com.example.zfirst is chosen (its exported declaration is the one in use, registered first)")
            })
    }

    @Test func exactTiesFallBackToTheIdentifier() throws {
        let registry = Self.registry([
            try Fixtures.claimingApp("com.example.zeta", types: ["public.plain-text"], at: 7),
            try Fixtures.claimingApp("com.example.Alpha", types: ["public.plain-text"], at: 7),
        ])
        let ranking = registry.handlers(for: .plainText)
        #expect(ids(ranking) == ["com.example.Alpha", "com.example.zeta"])
        #expect(
            ranking.conflicts == [
                "tie: com.example.Alpha and com.example.zeta both claim public.plain-text at rank Default (public.plain-text); com.example.Alpha wins: com.example.Alpha's identifier sorts first"
            ])
    }

    @Test func extensionAndMIMEClaims() throws {
        let registry = Self.registry([
            try Fixtures.claimingApp("com.example.byext", extensions: ["GZ"], at: 1),
            try Fixtures.app(
                """
                <key>CFBundleIdentifier</key><string>com.example.bymime</string>
                <key>CFBundleDocumentTypes</key><array><dict>
                    <key>CFBundleTypeMIMETypes</key><array><string>application/x-gzip</string></array>
                    <key>LSHandlerRank</key><string>Alternate</string>
                </dict></array>
                <key>ShareImporter</key><dict><key>Kind</key><string>copy</string><key>Folder</key><string>x</string></dict>
                """, at: 2),
        ])
        let tarball = registry.handlers(for: "org.gnu.gnu-zip-tar-archive", fileName: "a.tar.gz")
        #expect(
            tarball.candidates.map(\.match) == [.filenameExtension("gz"), .mimeType("application/x-gzip", distance: 1)])
        #expect(
            registry.handlers(for: "org.gnu.gnu-zip-archive").candidates.map(\.match) == [
                .filenameExtension("gz"), .mimeType("application/x-gzip", distance: 0),
            ])
        #expect(registry.handlers(for: "public.png", fileName: "x.png").candidates.isEmpty)
    }

    @Test func noHandlerMeansTheReceiveFolder() throws {
        let registry = Self.registry([try Fixtures.app(Fixtures.scaryBugs)])
        let resolution = registry.resolve(ResolutionRequest(fileName: "photo.png", content: Fixtures.Bytes.png))
        #expect(resolution.isSafe)
        #expect(registry.importChoice(for: resolution) == .receiveFolder(.noHandler("public.png")))
        let bug = registry.resolve(ResolutionRequest(fileName: "Ladybug.sbz", content: Fixtures.Bytes.gzip))
        guard case .application(let handler) = registry.importChoice(for: bug) else {
            Issue.record("ScaryBugs imports .sbz")
            return
        }
        #expect(handler.applicationID == "com.example.scarybugs")
        #expect(handler.importer == .unpack(folder: "/home/ada/Library/ScaryBugs/Documents"))
        #expect(handler.rank == .owner)
        #expect(
            ReceiveFolderReason.noHandler("public.png").description == "no registered application imports public.png")
    }

    @Test func explainShowsChainTagsDeclarersHandlersAndConflicts() throws {
        let registry = Self.registry([
            try Fixtures.claimingApp("com.example.viewer", types: ["public.image"], at: 10),
            try Fixtures.claimingApp("com.example.a", types: ["public.png"], rank: "Owner", at: 1),
            try Fixtures.claimingApp("com.example.b", types: ["public.png"], rank: "Owner", at: 2),
        ])
        let explanation = try #require(registry.explain("PUBLIC.PNG"))
        #expect(explanation.record.identifier.rawValue == "public.png")
        #expect(explanation.record.filenameExtensions == ["png"])
        #expect(explanation.record.mimeTypes == ["image/png"])
        #expect(explanation.record.description == "PNG image")
        #expect(explanation.supertypes == ["public.image", "public.data", "public.item", "public.content"])
        #expect(
            explanation.conformanceChains == [
                ["public.png", "public.image", "public.data", "public.item"],
                ["public.png", "public.image", "public.content"],
            ])
        #expect(explanation.declarers.map(\.description) == ["builtin", "shared-mime-info (image/png) (not used)"])
        #expect(
            explanation.handlers.candidates.map(\.applicationID) == [
                "com.example.a", "com.example.b", "com.example.viewer",
            ])
        #expect(explanation.handlers.decisions[1] == "tie at rank Owner: com.example.a was registered earlier")
        #expect(
            explanation.conflicts == [
                "conflicting owners: com.example.a and com.example.b both claim public.png at rank Owner (public.png); com.example.a wins: com.example.a was registered earlier"
            ])
        #expect(registry.warnings.map(\.kind) == [.conflictingOwners])
        #expect(registry.explain("com.nobody.declared") == nil)
        let dynamic = try #require(registry.explain(registry.preferredType(forFilenameExtension: "qqzz")))
        #expect(dynamic.record.origin == .dynamic)
        #expect(dynamic.supertypes == [.data, .item])
    }
}
