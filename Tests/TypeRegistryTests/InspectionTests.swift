import Foundation
import Testing

@testable import TypeRegistry

@Suite struct InspectionTests {
    /// A manifest with a package type, an imported type, a string where a list belongs, stray
    /// whitespace and a lower-case rank.
    static let manifest = """
        <key>CFBundleIdentifier</key><string>com.example.notebook</string>
        <key>CFBundleName</key><string>Notebook</string>
        <key>UTExportedTypeDeclarations</key>
        <array>
            <dict>
                <key>UTTypeIdentifier</key><string>com.example.notebook.nbk</string>
                <key>UTTypeConformsTo</key><array><string>com.apple.package</string><string>public.composite-content</string></array>
                <key>UTTypeDescription</key><string>Notebook "bundle"</string>
                <key>UTTypeTagSpecification</key>
                <dict>
                    <key>public.filename-extension</key><string>nbk</string>
                    <key>public.mime-type</key><array><string>application/x-notebook</string></array>
                </dict>
            </dict>
        </array>
        <key>UTImportedTypeDeclarations</key>
        <array>
            <dict>
                <key>UTTypeIdentifier</key><string> org.markdown.Note </string>
                <key>UTTypeConformsTo</key><array><string>public.plain-text</string></array>
                <key>UTTypeTagSpecification</key>
                <dict><key>public.filename-extension</key><array><string>MDN</string><string>.mdnote</string></array></dict>
            </dict>
        </array>
        <key>CFBundleDocumentTypes</key>
        <array>
            <dict>
                <key>CFBundleTypeName</key><string>Notebook</string>
                <key>CFBundleTypeRole</key><string>Editor</string>
                <key>LSHandlerRank</key><string>owner</string>
                <key>LSItemContentTypes</key><array><string>com.example.notebook.nbk</string></array>
                <key>LSTypeIsPackage</key><true/>
            </dict>
            <dict>
                <key>LSItemContentTypes</key><array><string>org.markdown.note</string><string>public.plain-text</string></array>
                <key>CFBundleTypeExtensions</key><array><string>txt</string></array>
                <key>CFBundleTypeMIMETypes</key><array><string>text/markdown</string><string>text/plain</string></array>
                <key>CFBundleTypeOSTypes</key><array><string>TEXT</string></array>
                <key>NSDocumentClass</key><string>NoteDocument</string>
                <key>NSExportableTypes</key><array><string>public.html</string></array>
                <key>CFBundleTypeIconFile</key><string>Note.icns</string>
                <key>LSTypeIsPackage</key><false/>
            </dict>
        </array>
        """

    static let expectedJSON = #"""
        {
          "declaredTypes": [
            {
              "identifier": "com.example.notebook.nbk",
              "declaration": "exported",
              "conformsTo": [
                "com.apple.package",
                "public.composite-content"
              ],
              "extensions": [
                "nbk"
              ],
              "mimeTypes": [
                "application/x-notebook"
              ],
              "description": "Notebook \"bundle\"",
              "isPackage": true
            },
            {
              "identifier": "org.markdown.Note",
              "declaration": "imported",
              "conformsTo": [
                "public.plain-text"
              ],
              "extensions": [
                "MDN",
                ".mdnote"
              ],
              "mimeTypes": [],
              "description": null,
              "isPackage": false
            }
          ],
          "documentTypes": [
            {
              "name": "Notebook",
              "role": "Editor",
              "rank": "owner",
              "contentTypes": [
                "com.example.notebook.nbk"
              ],
              "extensions": [],
              "mimeTypes": [],
              "osTypes": [],
              "isPackage": true,
              "documentClass": null,
              "exportableTypes": [],
              "icons": []
            },
            {
              "name": null,
              "role": null,
              "rank": null,
              "contentTypes": [
                "org.markdown.note",
                "public.plain-text"
              ],
              "extensions": [
                "txt"
              ],
              "mimeTypes": [
                "text/markdown",
                "text/plain"
              ],
              "osTypes": [
                "TEXT"
              ],
              "isPackage": false,
              "documentClass": "NoteDocument",
              "exportableTypes": [
                "public.html"
              ],
              "icons": [
                "Note.icns"
              ]
            }
          ],
          "warnings": [
            "UTExportedTypeDeclarations[0].UTTypeTagSpecification.public.filename-extension: expected an array, found a string; read as a one-element list",
            "UTImportedTypeDeclarations[0].UTTypeIdentifier: surrounding whitespace in ' org.markdown.Note ' is ignored",
            "CFBundleDocumentTypes[0].LSHandlerRank: 'owner' should be spelled 'Owner'; read as Owner",
            "UTImportedTypeDeclarations[0].UTTypeTagSpecification.public.filename-extension[1]: '.mdnote': an extension is written without its leading dot; read as 'mdnote'"
          ]
        }
        """#

    @Test func inspectJSONHasExactlyTheDocumentedShape() throws {
        let manifest = try Fixtures.manifest(Self.manifest)
        #expect(manifest.inspection.jsonText() == Self.expectedJSON)
    }

    @Test func compactJSONAndCodableAgree() throws {
        let inspection = try Fixtures.manifest(Self.manifest).inspection
        let compact = inspection.jsonText(prettyPrinted: false)
        #expect(
            compact.hasPrefix(
                #"{"declaredTypes":[{"identifier":"com.example.notebook.nbk","declaration":"exported","conformsTo":["#))
        #expect(!compact.contains("\n"))
        let decoded = try JSONDecoder().decode(ManifestInspection.self, from: Data(compact.utf8))
        #expect(decoded == inspection)
        let reencoded = try JSONDecoder().decode(ManifestInspection.self, from: JSONEncoder().encode(inspection))
        #expect(reencoded == inspection)
        let keys = try #require(JSONSerialization.jsonObject(with: Data(compact.utf8)) as? [String: Any])
        #expect(Set(keys.keys) == ["declaredTypes", "documentTypes", "warnings"])
    }

    @Test func anEmptyManifestInspectsToEmptyLists() throws {
        let manifest = try Fixtures.manifest("")
        #expect(
            manifest.inspection.jsonText(prettyPrinted: false)
                == #"{"declaredTypes":[],"documentTypes":[],"warnings":[]}"#)
    }

    @Test func jsonStringsAreEscaped() {
        let text = JSONText.strings(["a\"b\\c\n\t\u{01}/é"]).rendered(prettyPrinted: false)
        #expect(text == #"["a\"b\\c\n\t\u0001/é"]"#)
    }
}
