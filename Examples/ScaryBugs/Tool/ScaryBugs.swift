// scarybugs: the ScaryBugs example application's command line.
//
// A bug document is a folder named after the bug's title, holding `data.plist` (title and rating)
// and two images. It travels as one gzip-compressed tar archive, `<title>.sbz`. share imports a
// received `.sbz` with the built-in `unpack` importer (see Info.plist): it unpacks the archive into
// the store, ~/.local/share/ScaryBugs/Bugs, under the next free folder name, and never overwrites.

import Foundation
import ShareArchive

#if canImport(Glibc)
    import Glibc
#endif

@main
struct ScaryBugs {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first else { usage() }
        arguments.removeFirst()
        do {
            switch command {
            case "new": try newBug(arguments)
            case "export": try export(arguments)
            case "list": try list(arguments)
            default: usage()
            }
        } catch {
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            exit(1)
        }
    }

    static func usage() -> Never {
        FileHandle.standardError.write(
            Data(
                """
                usage: scarybugs new <title> [--rating 1-5] [--in <folder>]   make a bug document folder
                       scarybugs export <bug folder> [--to <folder>]          write <title>.sbz
                       scarybugs list [--store <folder>]                      list the bugs in the store

                """.utf8))
        exit(64)
    }

    /// The store share unpacks into: $XDG_DATA_HOME/ScaryBugs/Bugs, else ~/.local/share/ScaryBugs/Bugs.
    static var defaultStore: String {
        let environment = ProcessInfo.processInfo.environment
        let data =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return data + "/ScaryBugs/Bugs"
    }

    static func option(_ name: String, in arguments: inout [String]) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...(index + 1))
        return value
    }

    static func newBug(_ arguments: [String]) throws {
        var arguments = arguments
        let rating = Int(option("--rating", in: &arguments) ?? "3") ?? 3
        let folder = option("--in", in: &arguments) ?? FileManager.default.currentDirectoryPath
        guard let title = arguments.first, !title.isEmpty, !title.contains("/") else { usage() }
        let bug = folder + "/" + title
        try FileManager.default.createDirectory(atPath: bug, withIntermediateDirectories: true)
        let data = try PropertyListSerialization.data(
            fromPropertyList: ["title": title, "rating": max(1, min(5, rating))], format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: bug + "/data.plist"))
        try Data(tinyPNG).write(to: URL(fileURLWithPath: bug + "/thumbImage.png"))
        try Data(tinyPNG).write(to: URL(fileURLWithPath: bug + "/fullImage.png"))
        print(bug)
    }

    static func export(_ arguments: [String]) throws {
        var arguments = arguments
        let destination = option("--to", in: &arguments) ?? FileManager.default.currentDirectoryPath
        guard let bug = arguments.first else { usage() }
        let title = try readBug(bug).title
        let path = destination + "/" + title + ".sbz"
        let writer = try ArchiveWriter(path: path, format: .tarGzip)
        try writer.addFolder(title)
        try writer.addContents(of: bug, prefix: title)
        try writer.close()
        print(path)
    }

    static func list(_ arguments: [String]) throws {
        var arguments = arguments
        let store = option("--store", in: &arguments) ?? defaultStore
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: store)) ?? []).filter { !$0.hasPrefix(".") }
        for name in names.sorted() {
            let bug = try readBug(store + "/" + name)
            print("\(name): \(bug.title), rated \(bug.rating)")
        }
    }

    static func readBug(_ folder: String) throws -> (title: String, rating: Int) {
        guard let data = FileManager.default.contents(atPath: folder + "/data.plist"),
            let plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let title = plist["title"] as? String, let rating = plist["rating"] as? Int
        else {
            throw BugError(message: "'\(folder)' is not a bug document (no readable data.plist with title and rating)")
        }
        return (title, rating)
    }

    /// A 1×1 PNG, the sample bug's picture.
    static let tinyPNG: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
        0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x38, 0x60, 0xA0, 0xF0,
        0x1F, 0x00, 0x04, 0xD4, 0x02, 0x10, 0x33, 0x74, 0x88, 0x99, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
        0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]
}

struct BugError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
