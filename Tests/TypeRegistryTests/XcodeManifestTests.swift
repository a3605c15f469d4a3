import Foundation
import Testing

@testable import TypeRegistry

/// Manifests as they sit in real repositories: Xcode's preprocessor lines and build settings,
/// every key of a document type, and identifiers real apps use.
@Suite struct XcodeManifestTests {
    /// Modelled on an Xcode project's Info.plist (MacVim's and NetNewsWire's shapes): preprocessor
    /// lines around a debug-only key, `$(...)` and `${...}` build settings as identifier and names.
    static let manifest = Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleIdentifier</key>
        \t<string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>
        \t<key>CFBundleName</key>
        \t<string>$(PRODUCT_NAME)</string>
        \t<key>CFBundleDisplayName</key>
        \t<string>${PRODUCT_NAME}</string>
        #if DEBUG
        \t<key>NSAppTransportSecurity</key>
        \t<dict/>
        #endif
        \t<key>UTExportedTypeDeclarations</key>
        \t<array>
        \t\t<dict>
        \t\t\t<key>UTTypeIdentifier</key><string>org.vim.pch++-file</string>
        \t\t\t<key>UTTypeConformsTo</key><array><string>public.data</string></array>
        \t\t\t<key>UTTypeTagSpecification</key>
        \t\t\t<dict><key>public.filename-extension</key><array><string>pch++</string></array></dict>
        \t\t</dict>
        \t\t<dict>
        \t\t\t<key>UTTypeIdentifier</key><string>$(PRODUCT_BUNDLE_IDENTIFIER).session</string>
        \t\t\t<key>UTTypeConformsTo</key><array><string>public.plain-text</string></array>
        \t\t\t<key>UTTypeTagSpecification</key>
        \t\t\t<dict><key>public.filename-extension</key><array><string>vimsession</string></array></dict>
        \t\t</dict>
        \t</array>
        \t<key>CFBundleDocumentTypes</key>
        \t<array>
        \t\t<dict>
        \t\t\t<key>CFBundleTypeName</key><string>Session</string>
        \t\t\t<key>LSItemContentTypes</key><array><string>$(PRODUCT_BUNDLE_IDENTIFIER).session</string><string>org.vim.pch++-file</string></array>
        \t\t\t<key>CFBundleTypeMIMETypes</key><array><string>text/x-c++hdr</string></array>
        \t\t\t<key>LSTypeIsPackage</key><false/>
        \t\t\t<key>LSHandlerRank</key><string>Owner</string>
        \t\t</dict>
        \t</array>
        \t<key>ShareImporter</key>
        \t<dict><key>Kind</key><string>copy</string><key>Folder</key><string>Sessions</string></dict>
        </dict>
        </plist>
        """.utf8)

    @Test func inspectionReadsItWithAWarningPerSkippedLineAndUnexpandedSetting() throws {
        let manifest = try ApplicationManifest.parse(Self.manifest)
        let warnings = manifest.warnings.map(\.description)
        #expect(
            warnings.filter { $0.hasPrefix("line ") } == [
                "line 11: '#if DEBUG' is a preprocessor line, which Xcode evaluates when it builds the app; skipped (the lines of every branch are read)",
                "line 14: '#endif' is a preprocessor line, which Xcode evaluates when it builds the app; skipped (the lines of every branch are read)",
            ])
        #expect(
            warnings.contains(
                "CFBundleIdentifier: '$(PRODUCT_BUNDLE_IDENTIFIER)' is an Xcode build setting, which Xcode fills in when it builds the app; give the application's identifier with --bundle-id"
            ))
        #expect(
            warnings.contains(
                "UTExportedTypeDeclarations[1].UTTypeIdentifier: '$(PRODUCT_BUNDLE_IDENTIFIER).session' holds the Xcode build setting $(PRODUCT_BUNDLE_IDENTIFIER), which Xcode fills in when it builds the app; the declaration is ignored (--bundle-id fills in $(PRODUCT_BUNDLE_IDENTIFIER))"
            ))
        // As declared for `inspect`, usable only where nothing is unexpanded.
        #expect(manifest.bundleIdentifier == "$(PRODUCT_BUNDLE_IDENTIFIER)")
        #expect(manifest.bundleName == nil, "never $(PRODUCT_NAME)")
        #expect(manifest.declaredTypes.map(\.identifier) == ["org.vim.pch++-file", "$(PRODUCT_BUNDLE_IDENTIFIER).session"])
        #expect(manifest.typeDeclarations.map(\.identifier) == ["org.vim.pch++-file"])
        #expect(manifest.handlerClaims.first?.contentTypes == ["org.vim.pch++-file"])
        let document = try #require(manifest.inspection.documentTypes.first)
        #expect(document.mimeTypes == ["text/x-c++hdr"])
        #expect(document.isPackage == false)
        #expect(manifest.inspection.jsonText().contains("\"isPackage\": false"))
    }

    @Test func registrationRefusesAnUnexpandedIdentifierAndTakesTheOneGiven() throws {
        #expect(throws: RegistrationError.unexpandedApplicationIdentifier(
            "$(PRODUCT_BUNDLE_IDENTIFIER)", setting: "$(PRODUCT_BUNDLE_IDENTIFIER)")
        ) {
            try ApplicationRegistration(manifest: try ApplicationManifest.parse(Self.manifest), paths: Fixtures.paths)
        }
        let error = RegistrationError.unexpandedApplicationIdentifier(
            "$(PRODUCT_BUNDLE_IDENTIFIER)", setting: "$(PRODUCT_BUNDLE_IDENTIFIER)")
        #expect(error.description.contains("--bundle-id"))

        let manifest = try ApplicationManifest.parse(Self.manifest, bundleIdentifier: "org.vim.MacVim")
        let registration = try ApplicationRegistration(manifest: manifest, paths: Fixtures.paths)
        #expect(registration.applicationID == "org.vim.MacVim")
        #expect(registration.name == "org.vim.MacVim", "no $(PRODUCT_NAME)")
        #expect(manifest.typeDeclarations.map(\.identifier) == ["org.vim.pch++-file", "org.vim.MacVim.session"])
        #expect(manifest.handlerClaims.first?.contentTypes == ["org.vim.MacVim.session", "org.vim.pch++-file"])
        let registry = TypeRegistry(sharedMimeInfo: Fixtures.database, applications: [registration])
        #expect(registry.resolve(ResolutionRequest(fileName: "Main.vimsession")).type == "org.vim.MacVim.session")
        #expect(registry.resolve(ResolutionRequest(fileName: "Prefix.pch++")).type == "org.vim.pch++-file")
        #expect(registry.handlers(for: "org.vim.pch++-file").best?.applicationID == "org.vim.MacVim")
    }

    @Test func buildSettingReferencesAndModifiers() {
        let references = BuildSettingReference.references(in: "$(A).${B_2:lower}.$(not a setting).$(C")
        #expect(references.map(\.name) == ["A", "B_2"])
        #expect(references[1].modifiers == ["lower"])
        #expect(
            BuildSettingReference.expand(
                "$(PRODUCT_BUNDLE_IDENTIFIER).doc ${PRODUCT_BUNDLE_IDENTIFIER:rfc1034identifier} $(OTHER)",
                settings: ["PRODUCT_BUNDLE_IDENTIFIER": "com.Example.My_App"])
                == "com.Example.My_App.doc com.Example.My-App $(OTHER)")
    }

    /// A `#` line inside a multi-line string is text, not a preprocessor line.
    @Test func onlyLinesBetweenElementsAreSkipped() throws {
        let data = Fixtures.plist(
            """
            <key>CFBundleIdentifier</key><string>com.example.notes</string>
            <key>NSHumanReadableCopyright</key><string>Notes
            #include everything
            </string>
            """)
        let manifest = try ApplicationManifest.parse(data)
        #expect(!manifest.warnings.contains { $0.location.hasPrefix("line ") })
    }

    @Test(arguments: [
        ("org.vim.pch++-file", true), ("com.example.my_type", true), ("org.vim.c#-file", true),
        ("com.example.x*y", false), ("com.example/x", false), ("com.example:x", false), ("com.example.x y", false),
        ("com..example", false),
    ])
    func identifiersFollowLaunchServices(text: String, valid: Bool) {
        #expect(TypeIdentifier(text).isWellFormed == valid)
        #expect(!TypeIdentifier(text).isRecommendedForm || valid)
    }

    @Test func applicationIdentifiersKeepApplesStricterRule() throws {
        let body = """
            <key>CFBundleIdentifier</key><string>org.vim.mac_vim</string>
            """
        #expect(throws: RegistrationError.invalidApplicationIdentifier("org.vim.mac_vim")) {
            try Fixtures.app(body)
        }
    }
}
