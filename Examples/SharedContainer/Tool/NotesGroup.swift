// notesgroup: lists an app group's shared container, the way either app of the group sees it.
//
// Journal and Scrapbook (Journal/Info.plist, Scrapbook/Info.plist) are two applications of one
// "app group": both ShareImporters name the same folder, ~/.local/share/group.com.example.notes/Documents
// (the Linux analogue of an app group's shared container). share copies a received journal entry
// (.jentry) there for Journal and moves a received clipping (.clip) there for Scrapbook, so each app
// lists what the other imported. `notesgroup list <manifest>` reads an app's manifest, finds its
// container, and lists it.

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

@main
struct NotesGroup {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count == 2, arguments[0] == "list" else {
            FileHandle.standardError.write(Data("usage: notesgroup list <Info.plist of Journal or Scrapbook>\n".utf8))
            exit(64)
        }
        guard let data = FileManager.default.contents(atPath: arguments[1]),
            let manifest = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let importer = manifest["ShareImporter"] as? [String: Any], let folder = importer["Folder"] as? String
        else {
            FileHandle.standardError.write(Data("Error: '\(arguments[1])' has no ShareImporter Folder\n".utf8))
            exit(1)
        }
        let app = manifest["CFBundleName"] as? String ?? "?"
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        let container = folder.hasPrefix("~/") ? home + folder.dropFirst() : folder
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: container)) ?? []).filter {
            !$0.hasPrefix(".")
        }
        print("\(app) sees \(names.count) \(names.count == 1 ? "document" : "documents") in \(container):")
        for name in names.sorted() { print("  \(name)") }
    }
}
