import Foundation
import ShareKit
import ShareTestSupport
import TypeRegistry

#if canImport(Glibc)
    import Glibc
#endif

/// Test applications and their registrations.
enum TestApps {
    /// The installed shared-mime-info database, read once for all import tests.
    static let database = SharedMimeInfo.load(packageDirectories: ["/usr/share/mime/packages"])

    /// An Info.plist declaring `typeID` (extension `ext`, conforming to `conformsTo`), claiming it at
    /// `rank`, with the ShareImporter dictionary `importer` (plist XML of its keys).
    static func manifest(
        id: String, name: String, typeID: String, ext: String, conformsTo: String = "public.data",
        isPackage: Bool = false, rank: String = "Owner", importer: String
    ) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
          <key>CFBundleIdentifier</key><string>\(id)</string>
          <key>CFBundleName</key><string>\(name)</string>
          <key>UTExportedTypeDeclarations</key><array><dict>
            <key>UTTypeIdentifier</key><string>\(typeID)</string>
            <key>UTTypeConformsTo</key><array><string>\(conformsTo)</string></array>
            <key>UTTypeTagSpecification</key><dict>
              <key>public.filename-extension</key><array><string>\(ext)</string></array>
            </dict>
          </dict></array>
          <key>CFBundleDocumentTypes</key><array><dict>
            <key>CFBundleTypeRole</key><string>Editor</string>
            <key>LSHandlerRank</key><string>\(rank)</string>
            <key>LSItemContentTypes</key><array><string>\(typeID)</string></array>
            \(isPackage ? "<key>LSTypeIsPackage</key><true/>" : "")
          </dict></array>
          <key>ShareImporter</key><dict>\(importer)</dict>
        </dict></plist>
        """
    }

    /// `<key>Kind</key><string>command</string>` with `Arguments`, `Timeout` and, when given, the
    /// store `Folder` (the only folder the command may write, besides its TMPDIR).
    static func command(_ arguments: [String], timeout: Int = 10, folder: String? = nil) -> String {
        "<key>Kind</key><string>command</string><key>Arguments</key><array>"
            + arguments.map { "<string>\($0)</string>" }.joined() + "</array>"
            + "<key>Timeout</key><integer>\(timeout)</integer>"
            + (folder.map { "<key>Folder</key><string>\($0)</string>" } ?? "")
    }

    /// `<key>Kind</key><string>kind</string><key>Folder</key><string>folder</string>`.
    static func folder(_ kind: String, _ folder: String) -> String {
        "<key>Kind</key><string>\(kind)</string><key>Folder</key><string>\(folder)</string>"
    }

    /// Writes a manifest into `dir/<name>.plist` and registers it.
    static func register(_ text: String, as name: String, in dir: TemporaryDirectory) throws -> ApplicationRegistration
    {
        FileTree.makeFolder(dir.at("apps"))
        let path = dir.at("apps/\(name).plist")
        FileTree.writeText(path, text)
        return try ApplicationRegistration.load(manifestAt: path, homeDirectory: dir.at("home"))
    }

    /// Registers "Notes" (`com.example.notes`, which imports `.note` files by copying them into
    /// `Store`) in `store`, from a manifest written to `dir/Notes.plist`.
    static func registerNotes(in store: ApplicationStore, dir: TemporaryDirectory) throws {
        let path = dir.at("Notes.plist")
        FileTree.writeText(
            path,
            manifest(
                id: "com.example.notes", name: "Notes", typeID: "com.example.note", ext: "note",
                importer: folder("copy", "Store")))
        _ = try store.register(manifestAt: path, homeDirectory: dir.at("home"))
    }

    /// A registry of the built-in types, the installed database and `applications`.
    static func registry(_ applications: [ApplicationRegistration]) -> TypeRegistry {
        TypeRegistry(sharedMimeInfo: database, applications: applications)
    }

    /// A manifest of `id` with one document type (`documentType`: the keys of its dictionary) and
    /// the ShareImporter dictionary `importer` (plist XML of its keys), declaring no type.
    static func claiming(id: String, name: String, documentType: String, importer: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
          <key>CFBundleIdentifier</key><string>\(id)</string>
          <key>CFBundleName</key><string>\(name)</string>
          <key>CFBundleDocumentTypes</key><array><dict>\(documentType)</dict></array>
          <key>ShareImporter</key><dict>\(importer)</dict>
        </dict></plist>
        """
    }

    /// An application `com.example.<name>` whose `command` importer is the shell script `body`
    /// (written to `dir/apps/<name>.sh`), claiming the type `com.example.<ext>` of files `*.<ext>`.
    static func scripted(
        _ name: String, ext: String, in dir: TemporaryDirectory, body: String, folder: String? = nil
    ) throws -> ApplicationRegistration {
        FileTree.makeFolder(dir.at("apps"))
        let script = dir.at("apps/\(name.lowercased()).sh")
        self.script(script, body)
        return try register(
            manifest(
                id: "com.example.\(name.lowercased())", name: name, typeID: "com.example.\(ext)", ext: ext,
                importer: command([script, "%f"], folder: folder)),
            as: name.lowercased(), in: dir)
    }

    /// Writes an executable shell script (an application's own importer program).
    static func script(_ path: String, _ body: String) {
        FileTree.writeText(path, "#!/bin/sh\n" + body + "\n")
        chmod(path, 0o755)
    }
}

/// The entry folders of an inbox (its staging folder left out).
func inboxEntries(_ inbox: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: inbox)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
}
