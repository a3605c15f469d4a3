import Foundation
import Testing

@testable import TypeRegistry

@Suite struct SharedMimeInfoTests {
    // MARK: - The installed database

    @Test func installedDatabaseLoadsQuickly() {
        let clock = ContinuousClock()
        let start = clock.now
        let database = SharedMimeInfo.load(packageDirectories: ["/usr/share/mime/packages"])
        let loaded = clock.now - start
        let registry = TypeRegistry(sharedMimeInfo: database)
        let merged = clock.now - start - loaded
        print(
            "shared-mime-info: \(database.definitions.count) types, \(database.aliases.count) aliases read in \(loaded); registry of \(registry.allTypes.count) types merged in \(merged) (debug build)"
        )
        #expect(database.definitions.count >= 800)
        #expect(database.sources == ["/usr/share/mime/packages/freedesktop.org.xml"])
        #expect(database.warnings.isEmpty, "\(database.warnings.prefix(5))")
        #expect(loaded < .seconds(5))
    }

    @Test(arguments: [
        ("report.pdf", "application/pdf"), ("photo.JPG", "image/jpeg"), ("notes.txt", "text/plain"),
        ("archive.tar.gz", "application/x-compressed-tar"), ("script.py", "text/x-python"),
        ("Makefile", "text/x-makefile"),
        ("main.C", "text/x-c++src"), ("main.c", "text/x-csrc"), ("index.html", "text/html"),
    ])
    func installedDatabaseMatchesNames(name: String, mimeType: String) {
        #expect(Fixtures.database.mimeTypes(forFileName: name).first?.mimeType == mimeType)
    }

    @Test(arguments: [
        (Fixtures.Bytes.png, "image/png"), (Fixtures.Bytes.jpeg, "image/jpeg"), (Fixtures.Bytes.pdf, "application/pdf"),
        (Fixtures.Bytes.zip, "application/zip"), (Fixtures.Bytes.elf, "application/x-executable"),
        (Fixtures.Bytes.gzip, "application/gzip"), (Fixtures.Bytes.shellScript, "application/x-shellscript"),
        (Fixtures.Bytes.xmlPlist, "application/xml"),
    ])
    func installedDatabaseSniffsContent(bytes: [UInt8], mimeType: String) {
        #expect(Fixtures.database.sniff(bytes).first?.mimeType == mimeType)
    }

    @Test func noMagicForTextOrNoise() {
        #expect(Fixtures.database.sniff(Fixtures.Bytes.random).isEmpty)
        #expect(Fixtures.database.sniff([]).isEmpty)
        #expect(Fixtures.database.sniffFirst([]) == nil)
    }

    /// What counts as text when no magic matches: GLib's rule (the first 128 bytes, or the whole
    /// prefix, free of control characters other than white space).
    @Test func textOrBinaryAsGLibDecides() {
        #expect(SharedMimeInfo.looksLikeText(Fixtures.Bytes.text))
        #expect(SharedMimeInfo.looksLikeText(Array("Grüße aus Köln\n".utf8)), "UTF-8 is text")
        #expect(SharedMimeInfo.looksLikeText([]), "an empty file is a text file")
        #expect(SharedMimeInfo.looksLikeText(Array("page one\u{0C}page two\r\n".utf8)), "form feed is white space")
        #expect(!SharedMimeInfo.looksLikeText(Fixtures.Bytes.elf))
        #expect(!SharedMimeInfo.looksLikeText(Array("colour: \u{1B}[31mred\n".utf8)), "escape is a control character")
        #expect(!SharedMimeInfo.looksLikeText(Array("tab\u{0B}vertical\n".utf8)), "GLib does not count VT as space")
        let lateControl = Array(repeating: UInt8(ascii: "a"), count: 200) + [0x01]
        #expect(SharedMimeInfo.looksLikeText(lateControl), "only the first 128 bytes must be clean")
    }

    @Test func subclassesAndAliases() {
        let database = Fixtures.database
        #expect(database.canonicalName("Application/X-GZIP") == "application/gzip")
        #expect(database.isSubclass("application/x-shellscript", of: "text/plain"))
        #expect(database.isSubclass("application/epub+zip", of: "application/zip"))
        #expect(database.isSubclass("application/x-compressed-tar", of: "application/x-gzip"))
        #expect(database.isSubclass("text/x-csrc", of: "text/plain"))
        #expect(database.isSubclass("image/png", of: "application/octet-stream"))
        #expect(!database.isSubclass("inode/directory", of: "application/octet-stream"))
        #expect(!database.isSubclass("image/png", of: "image/jpeg"))
    }

    // MARK: - Package files

    private static func database(_ documents: String...) -> SharedMimeInfo {
        SharedMimeInfo.parse(documents.enumerated().map { ("test\($0.offset).xml", Data($0.element.utf8)) })
    }

    private static func package(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE mime-info [
        <!ELEMENT mime-info (mime-type)+>
        <!ATTLIST match type (string | big16 | big32 | little16 | little32 | host16 | host32 | byte) #REQUIRED>
        <!-- a comment with ] and > inside -->
        ]>
        <mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
        \(body)
        </mime-info>
        """
    }

    @Test func globWeightsCaseAndLongestMatch() {
        let database = Self.database(
            Self.package(
                """
                <mime-type type="application/x-low"><glob pattern="*.dat" weight="20"/></mime-type>
                <mime-type type="application/x-high"><glob pattern="*.dat" weight="80"/><glob pattern="*.x.y"/></mime-type>
                <mime-type type="application/x-short"><glob pattern="*.y"/></mime-type>
                <mime-type type="text/x-upper"><glob pattern="*.U" case-sensitive="true"/></mime-type>
                <mime-type type="text/x-lower"><glob pattern="*.u"/></mime-type>
                <mime-type type="text/x-literal"><glob pattern="README"/><glob pattern="*.readme"/></mime-type>
                <mime-type type="text/x-complex"><glob pattern="*.[0-9][0-9]"/><glob pattern="log-????.txt"/></mime-type>
                <mime-type type="text/x-default"><glob pattern="*.txt" weight="50"/></mime-type>
                """))
        #expect(database.mimeTypes(forFileName: "a.DAT").first?.mimeType == "application/x-high")
        #expect(database.mimeTypes(forFileName: "a.x.y").map(\.mimeType) == ["application/x-high"])
        #expect(database.mimeTypes(forFileName: "a.y").map(\.mimeType) == ["application/x-short"])
        #expect(database.mimeTypes(forFileName: "main.U").map(\.mimeType) == ["text/x-upper", "text/x-lower"])
        #expect(database.mimeTypes(forFileName: "main.u").map(\.mimeType) == ["text/x-lower"])
        #expect(database.mimeTypes(forFileName: "readme").map(\.mimeType) == ["text/x-literal"])
        #expect(database.mimeTypes(forFileName: "a.42").map(\.mimeType) == ["text/x-complex"])
        #expect(database.mimeTypes(forFileName: "a.4x").isEmpty)
        // Other patterns join a single suffix match, so the content can decide between them (as GLib).
        #expect(database.mimeTypes(forFileName: "log-2024.txt").map(\.mimeType) == ["text/x-default", "text/x-complex"])
        #expect(database.mimeTypes(forFileName: ".readme").isEmpty)
        #expect(database.mimeTypes(forFileName: "x.dat")[0].glob.weight == 80)
    }

    @Test func magicValueTypesOffsetsAndMasks() {
        let hostIsLittle = 1.littleEndian == 1
        let database = Self.database(
            Self.package(
                """
                <mime-type type="application/x-string"><magic><match type="string" offset="0" value="\\x89PNG\\r\\n\\032\\n"/></magic></mime-type>
                <mime-type type="application/x-range"><magic><match type="string" offset="2:16" value="needle"/></magic></mime-type>
                <mime-type type="application/x-strmask"><magic><match type="string" offset="0" value="AxC" mask="0xFF00FF"/></magic></mime-type>
                <mime-type type="application/x-byte"><magic><match type="byte" offset="1" value="0x7f"/></magic></mime-type>
                <mime-type type="application/x-big16"><magic><match type="big16" offset="0" value="0x1234"/></magic></mime-type>
                <mime-type type="application/x-little16"><magic><match type="little16" offset="0" value="0x1234"/></magic></mime-type>
                <mime-type type="application/x-big32"><magic><match type="big32" offset="0" value="0xCAFEBABE"/></magic></mime-type>
                <mime-type type="application/x-little32"><magic><match type="little32" offset="0" value="0x04034b50"/></magic></mime-type>
                <mime-type type="application/x-host16"><magic><match type="host16" offset="0" value="0x0102"/></magic></mime-type>
                <mime-type type="application/x-host32"><magic><match type="host32" offset="0" value="0x01020304"/></magic></mime-type>
                <mime-type type="application/x-octal"><magic><match type="little16" offset="0" value="0420"/></magic></mime-type>
                <mime-type type="application/x-nummask"><magic><match type="little16" offset="0" value="0x0200" mask="0xFF00"/></magic></mime-type>
                """))
        func sniffs(_ bytes: [UInt8]) -> [String] { database.sniff(bytes).map(\.mimeType) }
        #expect(sniffs([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == ["application/x-string"])
        #expect(sniffs(Array("..needle".utf8)) == ["application/x-range"])
        #expect(sniffs(Array("0123456789abcdefneedle".utf8)) == ["application/x-range"])  // starts at 16: inclusive
        #expect(sniffs(Array("0123456789abcdefXneedle".utf8)) == [])  // starts at 17
        #expect(sniffs(Array("0needle".utf8)) == [])  // starts at 1
        #expect(sniffs(Array("AzC".utf8)) == ["application/x-strmask"])
        #expect(sniffs(Array("BzC".utf8)) == [])
        #expect(sniffs([0x00, 0x7F]) == ["application/x-byte"])
        #expect(sniffs([0x12, 0x34]) == ["application/x-big16"])
        #expect(sniffs([0x34, 0x12]) == ["application/x-little16"])
        #expect(sniffs([0xCA, 0xFE, 0xBA, 0xBE]) == ["application/x-big32"])
        #expect(sniffs([0x50, 0x4B, 0x03, 0x04]) == ["application/x-little32"])
        #expect(sniffs(hostIsLittle ? [0x02, 0x01] : [0x01, 0x02]) == ["application/x-host16"])
        #expect(
            sniffs(hostIsLittle ? [0x04, 0x03, 0x02, 0x01] : [0x01, 0x02, 0x03, 0x04]).contains("application/x-host32"))
        #expect(sniffs([0x10, 0x01]) == ["application/x-octal"])
        #expect(sniffs([0x99, 0x02]).contains("application/x-nummask"))
        #expect(sniffs([0x99, 0x03]) == [])
    }

    @Test func nestedMatchesAreAndSiblingsAreOrAndPrioritiesOrder() {
        let database = Self.database(
            Self.package(
                """
                <mime-type type="application/x-nested">
                  <magic priority="70">
                    <match type="string" offset="0" value="HEAD">
                      <match type="byte" offset="4" value="1"/>
                      <match type="string" offset="4" value="v2">
                        <match type="string" offset="6" value="!"/>
                      </match>
                    </match>
                    <match type="string" offset="0" value="ALT"/>
                  </magic>
                </mime-type>
                <mime-type type="application/x-generic"><magic priority="20"><match type="string" offset="0" value="HE"/></magic></mime-type>
                <mime-type type="application/x-generic-child">
                  <sub-class-of type="application/x-generic"/>
                  <magic priority="20"><match type="string" offset="0" value="HEA"/></magic>
                </mime-type>
                """))
        // Rules are tried as update-mime-database orders them in mime.cache: by priority, then by name.
        func sniffs(_ text: String) -> [String] { database.sniff(Array(text.utf8)).map(\.mimeType) }
        #expect(
            sniffs("HEAD\u{01}") == ["application/x-nested", "application/x-generic", "application/x-generic-child"])
        #expect(sniffs("HEADv2!") == ["application/x-nested", "application/x-generic", "application/x-generic-child"])
        #expect(sniffs("HEADv2?") == ["application/x-generic", "application/x-generic-child"])
        #expect(sniffs("HEAD") == ["application/x-generic", "application/x-generic-child"])
        #expect(database.sniffFirst(Array("HEADv2?".utf8))?.mimeType == "application/x-generic")
        #expect(sniffs("ALT") == ["application/x-nested"])
        #expect(database.sniff(Array("HEAD\u{01}".utf8)).first?.priority == 70)
    }

    @Test func subclassesAliasesAndComments() throws {
        let database = Self.database(
            Self.package(
                """
                <mime-type type="application/x-base">
                  <comment>Base &amp; more</comment>
                  <comment xml:lang="de">Basis</comment>
                  <alias type="application/x-base-alias"/>
                </mime-type>
                <mime-type type="Application/X-Child">
                  <comment><![CDATA[Child <document>]]></comment>
                  <sub-class-of type="application/x-base-alias"/>
                  <sub-class-of type="application/x-child"/>
                </mime-type>
                <mime-type type="text/x-note"/>
                """))
        let child = try #require(database.definition("application/x-child"))
        #expect(child.comment == "Child <document>")
        #expect(database.definition("application/x-base")?.comment == "Base & more")
        #expect(database.definition("application/x-base-alias")?.mimeType == "application/x-base")
        #expect(database.parents(of: "application/x-child") == ["application/x-base"])
        #expect(database.isSubclass("application/x-child", of: "application/x-base-alias"))
        #expect(database.parents(of: "text/x-note") == ["text/plain"])
        #expect(database.parents(of: "application/x-base") == ["application/octet-stream"])
    }

    @Test func deleteAllAndPrecedence() {
        let low = Self.package(
            """
            <mime-type type="application/x-over"><glob pattern="*.old"/><magic><match type="string" offset="0" value="OLD"/></magic></mime-type>
            <mime-type type="application/x-kept"><glob pattern="*.kept"/></mime-type>
            """)
        let high = Self.package(
            """
            <mime-type type="application/x-over">
              <glob-deleteall/><glob pattern="*.new"/>
              <magic-deleteall/><magic><match type="string" offset="0" value="NEW"/></magic>
            </mime-type>
            <mime-type type="application/x-kept"><glob pattern="*.also"/></mime-type>
            """)
        let database = Self.database(low, high)
        #expect(database.mimeTypes(forFileName: "a.old").isEmpty)
        #expect(database.mimeTypes(forFileName: "a.new").first?.mimeType == "application/x-over")
        #expect(database.mimeTypes(forFileName: "a.kept").first?.mimeType == "application/x-kept")
        #expect(database.mimeTypes(forFileName: "a.also").first?.mimeType == "application/x-kept")
        #expect(database.sniff(Array("OLD".utf8)).isEmpty)
        #expect(database.sniff(Array("NEW".utf8)).first?.mimeType == "application/x-over")
    }

    @Test func directoriesAreReadInXDGPrecedenceWithOverrideLast() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("smi-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let user = root.appendingPathComponent("home/mime/packages")
        let system = root.appendingPathComponent("usr/mime/packages")
        for directory in [user, system] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        try Self.package(
            #"<mime-type type="application/x-app"><comment>system</comment><glob pattern="*.sys"/></mime-type>"#
        )
        .write(to: system.appendingPathComponent("app.xml"), atomically: true, encoding: .utf8)
        try Self.package(
            #"<mime-type type="application/x-app"><comment>user</comment><glob-deleteall/><glob pattern="*.usr"/></mime-type>"#
        )
        .write(to: user.appendingPathComponent("Override.xml"), atomically: true, encoding: .utf8)
        try Self.package(
            #"<mime-type type="application/x-app"><comment>user package</comment><glob pattern="*.pkg"/></mime-type>"#
        )
        .write(to: user.appendingPathComponent("zzz.xml"), atomically: true, encoding: .utf8)
        try "not xml at all".write(to: user.appendingPathComponent("broken.xml"), atomically: true, encoding: .utf8)
        try "ignored".write(to: user.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)

        let database = SharedMimeInfo.load(packageDirectories: [
            user.path, system.path, root.appendingPathComponent("missing").path,
        ])
        #expect(
            database.sources.map { URL(fileURLWithPath: $0).lastPathComponent } == [
                "app.xml", "broken.xml", "zzz.xml", "Override.xml",
            ])
        #expect(database.definition("application/x-app")?.comment == "user")
        #expect(database.mimeTypes(forFileName: "a.sys").isEmpty)
        #expect(database.mimeTypes(forFileName: "a.usr").first?.mimeType == "application/x-app")
        #expect(database.mimeTypes(forFileName: "a.pkg").isEmpty)
        #expect(database.warnings.count == 1)
        #expect(database.warnings.first?.contains("broken.xml:1:") == true)
    }

    @Test func defaultDirectoriesFollowXDG() {
        #expect(
            SharedMimeInfo.defaultPackageDirectories(environment: ["HOME": "/home/ada"]) == [
                "/home/ada/.local/share/mime/packages", "/usr/local/share/mime/packages", "/usr/share/mime/packages",
            ])
        #expect(
            SharedMimeInfo.defaultPackageDirectories(environment: [
                "HOME": "/home/ada", "XDG_DATA_HOME": "/data/", "XDG_DATA_DIRS": "/opt/share:relative:/usr/share",
            ]) == [
                "/data/mime/packages", "/opt/share/mime/packages", "/usr/share/mime/packages",
            ])
    }

    @Test func unusableValuesAreWarnedAndMalformedXMLDoesNotCrash() throws {
        let database = Self.database(
            Self.package(
                """
                <mime-type type="application/x-ok">
                  <magic priority="lots"><match type="bigger16" offset="0" value="1"><match type="string" offset="0" value="X"/></match>
                    <match type="byte" offset="x" value="1"/><match type="byte" offset="0" value="300"/>
                    <match type="string" offset="0" value="AB" mask="0xFF"/><match type="string" offset="0:9999999999" value="A"/>
                    <match type="string" offset="0" value="OK"/>
                  </magic>
                  <glob/>
                  <sub-class-of/>
                </mime-type>
                <mime-type><glob pattern="*.none"/></mime-type>
                <mime-type type="not a type"/>
                """),
            Self.package(#"<mime-type type="application/x-first"/><mime-type type="application/x-cut">"#))
        #expect(database.sniff(Array("OK".utf8)).first?.mimeType == "application/x-ok")
        #expect(database.definition("application/x-first") != nil)
        #expect(database.definition("application/x-cut") == nil)
        let messages = database.warnings.joined(separator: "\n")
        for fragment in [
            "magic priority 'lots'", "unknown type 'bigger16'", "offset 'x'", "'300' is not a 8-bit number",
            "mask '0xFF'",
            "offset '0:9999999999'", "<glob> without a pattern", "<sub-class-of> without",
            "<mime-type> without a valid type",
            "test1.xml:9: not well-formed XML",
        ] {
            #expect(messages.contains(fragment), "missing \(fragment) in \(messages)")
        }
        // Garbage of every shape loads as nothing, with warnings, never a crash.
        let fragments = [
            "<", "<mime-info", "<mime-info><mime-type type='a/b'>", "</x>", "<a></b>", "<!DOCTYPE", "<![CDATA[",
            "<?xml",
            "<mime-info a=b/>", "<mime-info a='1\"/>", "&#xFFFFFFFF;", String(repeating: "<m>", count: 1000),
        ]
        for fragment in fragments { _ = Self.database(fragment) }
        for seed in 1..<40 {
            let bytes = (0..<(seed * 11)).map { UInt8(truncatingIfNeeded: ($0 &* seed &+ 60) % 97 &+ 30) }
            _ = SharedMimeInfo.parse([("fuzz", Data(bytes))])
        }
    }
}
