import Foundation

@testable import TypeRegistry

/// Manifests and helpers shared by the tests.
enum Fixtures {
    /// The installed shared-mime-info database, read once for all tests.
    static let database = SharedMimeInfo.load(packageDirectories: ["/usr/share/mime/packages"])
    /// Built-in types plus the installed database, no applications.
    static let registry = TypeRegistry(sharedMimeInfo: database)
    /// Built-in types only.
    static let builtinRegistry = TypeRegistry()

    static let paths = ImporterPaths(baseDirectory: "/opt/apps/example", homeDirectory: "/home/ada")

    /// Wraps dictionary entries in an XML property list.
    static func plist(_ body: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \(body)
            </dict>
            </plist>
            """.utf8)
    }

    static func manifest(_ body: String) throws -> ApplicationManifest {
        try ApplicationManifest.parse(plist(body))
    }

    /// Registers a manifest body at a given time (seconds since 2001).
    static func app(_ body: String, at seconds: TimeInterval = 0) throws -> ApplicationRegistration {
        try ApplicationRegistration(
            manifest: manifest(body), paths: paths, registeredAt: Date(timeIntervalSinceReferenceDate: seconds))
    }

    /// A minimal application claiming types.
    static func claimingApp(
        _ id: String, types: [String] = [], extensions: [String] = [], rank: String? = nil, role: String = "Viewer",
        exports: String = "", at seconds: TimeInterval = 0
    ) throws -> ApplicationRegistration {
        let rankEntry = rank.map { "<key>LSHandlerRank</key><string>\($0)</string>" } ?? ""
        let typeEntries = types.map { "<string>\($0)</string>" }.joined()
        let extensionEntries = extensions.map { "<string>\($0)</string>" }.joined()
        return try app(
            """
            <key>CFBundleIdentifier</key><string>\(id)</string>
            <key>CFBundleName</key><string>\(id.split(separator: ".").last.map(String.init) ?? id)</string>
            \(exports)
            <key>CFBundleDocumentTypes</key>
            <array><dict>
                <key>CFBundleTypeName</key><string>Document</string>
                <key>CFBundleTypeRole</key><string>\(role)</string>
                \(rankEntry)
                \(types.isEmpty ? "" : "<key>LSItemContentTypes</key><array>\(typeEntries)</array>")
                \(extensions.isEmpty ? "" : "<key>CFBundleTypeExtensions</key><array>\(extensionEntries)</array>")
            </dict></array>
            <key>ShareImporter</key>
            <dict><key>Kind</key><string>copy</string><key>Folder</key><string>~/Inbox/\(id)</string></dict>
            """, at: seconds)
    }

    // MARK: - The example applications

    /// ScaryBugs: `.sbz`, a gzip-compressed serialized bundle, imported by unpacking into its store.
    static let scaryBugs = """
        <key>CFBundleIdentifier</key><string>com.example.scarybugs</string>
        <key>CFBundleName</key><string>ScaryBugs</string>
        <key>UTExportedTypeDeclarations</key>
        <array>
            <dict>
                <key>UTTypeIdentifier</key><string>com.example.scarybugs.sbz</string>
                <key>UTTypeConformsTo</key><array><string>org.gnu.gnu-zip-archive</string><string>public.content</string></array>
                <key>UTTypeDescription</key><string>Scary Bug</string>
                <key>UTTypeTagSpecification</key>
                <dict>
                    <key>public.filename-extension</key><array><string>sbz</string></array>
                    <key>public.mime-type</key><array><string>application/x-scarybugs</string></array>
                </dict>
            </dict>
        </array>
        <key>CFBundleDocumentTypes</key>
        <array>
            <dict>
                <key>CFBundleTypeName</key><string>Scary Bug</string>
                <key>CFBundleTypeRole</key><string>Editor</string>
                <key>LSHandlerRank</key><string>Owner</string>
                <key>LSItemContentTypes</key><array><string>com.example.scarybugs.sbz</string></array>
            </dict>
        </array>
        <key>ShareImporter</key>
        <dict>
            <key>Kind</key><string>unpack</string>
            <key>Folder</key><string>~/Library/ScaryBugs/Documents</string>
        </dict>
        """

    /// BeerTracker: `.btkr` (`application/beertracker`), a property list, imported by a command.
    static let beerTracker = """
        <key>CFBundleIdentifier</key><string>com.example.beertracker</string>
        <key>CFBundleName</key><string>BeerTracker</string>
        <key>UTExportedTypeDeclarations</key>
        <array>
            <dict>
                <key>UTTypeIdentifier</key><string>com.example.beertracker.btkr</string>
                <key>UTTypeConformsTo</key><array><string>com.apple.xml-property-list</string></array>
                <key>UTTypeDescription</key><string>Beer list</string>
                <key>UTTypeTagSpecification</key>
                <dict>
                    <key>public.filename-extension</key><array><string>btkr</string></array>
                    <key>public.mime-type</key><array><string>application/beertracker</string></array>
                </dict>
            </dict>
        </array>
        <key>CFBundleDocumentTypes</key>
        <array>
            <dict>
                <key>CFBundleTypeName</key><string>Beer list</string>
                <key>CFBundleTypeRole</key><string>Editor</string>
                <key>LSHandlerRank</key><string>Owner</string>
                <key>LSItemContentTypes</key><array><string>com.example.beertracker.btkr</string></array>
            </dict>
        </array>
        <key>ShareImporter</key>
        <dict>
            <key>Kind</key><string>command</string>
            <key>Arguments</key><array><string>bin/beertracker-import</string><string>--file=%f</string><string>--type</string><string>%t</string></array>
            <key>Timeout</key><integer>30</integer>
            <key>Folder</key><string>~/Library/Group Containers/group.com.example.shared</string>
        </dict>
        """

    /// CustomFile: `.mtt`, a zip container, imported by a command; shares the app-group folder.
    static let customFile = """
        <key>CFBundleIdentifier</key><string>com.example.customfile</string>
        <key>CFBundleName</key><string>CustomFile</string>
        <key>UTExportedTypeDeclarations</key>
        <array>
            <dict>
                <key>UTTypeIdentifier</key><string>com.example.customfile.mtt</string>
                <key>UTTypeConformsTo</key><array><string>public.zip-archive</string></array>
                <key>UTTypeDescription</key><string>Custom file</string>
                <key>UTTypeTagSpecification</key>
                <dict><key>public.filename-extension</key><string>mtt</string></dict>
            </dict>
        </array>
        <key>CFBundleDocumentTypes</key>
        <array>
            <dict>
                <key>CFBundleTypeName</key><string>Custom file</string>
                <key>CFBundleTypeRole</key><string>Editor</string>
                <key>LSItemContentTypes</key><array><string>com.example.customfile.mtt</string></array>
            </dict>
        </array>
        <key>ShareImporter</key>
        <dict>
            <key>Kind</key><string>command</string>
            <key>Arguments</key><array><string>/usr/bin/customfile</string><string>import</string><string>%f</string></array>
            <key>Folder</key><string>~/Library/Group Containers/group.com.example.shared</string>
        </dict>
        """

    /// The start of files of well-known formats.
    enum Bytes {
        static let png: [UInt8] =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52] + padding
        static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0, 1] + padding
        static let pdf: [UInt8] = Array("%PDF-1.7\n%\u{E2}\u{E3}\n1 0 obj\n".utf8) + padding
        static let zip: [UInt8] = [0x50, 0x4B, 3, 4, 20, 0, 0, 0, 8, 0, 0, 0, 0, 0] + padding
        static let elf: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0x3E, 0] + padding
        static let gzip: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + padding
        static let shellScript: [UInt8] = Array("#!/bin/sh\nrm -rf \"$HOME\"\n".utf8)
        static let text: [UInt8] = Array("Dear Ada,\nthe beer list is attached.\n".utf8)
        static let xmlPlist: [UInt8] = Array(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict/></plist>\n".utf8)
        static let random: [UInt8] = (0..<256).map { UInt8(($0 * 73 + 41) % 256) }
        static let padding: [UInt8] = Array(repeating: 0, count: 48)
    }
}
