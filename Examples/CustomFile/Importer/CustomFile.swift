// customfile: the CustomFile example application's command line and share importer.
//
// A `.mtt` document is a zip container holding `texts.plist` (a dictionary with `title` and
// `text`) and an optional `photo0.png`, possibly protected by a password (every entry encrypted
// with AES-256, written through libarchive). `customfile import FILE` is the ShareImporter command
// of Info.plist: it extracts the container (with ShareArchive's safe extraction) into a temporary
// folder beside its store, loads and checks it, saves the document into the store under the next
// free name, and removes the temporary folder whatever happens.
//
// Passwords follow share's importer convention (docs/TYPES.md): the password, when share has one,
// is the first line of standard input; a protected document without it (or with a wrong one) makes
// the importer exit with status 77, which tells share to ask the user and try again.
//
// The store is $XDG_DATA_HOME/CustomFile/Documents (else ~/.local/share/CustomFile/Documents);
// each document is a folder `<title>/` with texts.plist and, when there is one, photo0.png.

import Foundation
import ShareArchive

#if canImport(Glibc)
    import Glibc
#endif

@main
struct CustomFile {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first else { usage() }
        arguments.removeFirst()
        do {
            switch command {
            case "import": try importDocument(arguments)
            case "list": try list()
            case "sample": try sample(arguments)
            case "export": try export(arguments)
            default: usage()
            }
        } catch let error as CustomFileError {
            FileHandle.standardError.write(Data("Error: \(error.message)\n".utf8))
            exit(error.status)
        } catch {
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            exit(1)
        }
    }

    static func usage() -> Never {
        FileHandle.standardError.write(
            Data(
                """
                usage: customfile import <file.mtt>     add a received document to the store
                                                        (password, if any: first line of stdin)
                       customfile list                  list the documents
                       customfile sample <file.mtt> --title <title> --text <text> [--photo]
                                         [--password-file <file>]
                       customfile export <name> <file.mtt> [--password-file <file>]
                                                        write a stored document as a .mtt

                """.utf8))
        exit(64)
    }

    static var home: String {
        let environment = ProcessInfo.processInfo.environment
        let data =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return data + "/CustomFile"
    }

    static var store: String { home + "/Documents" }

    /// The exit status of an import that needs a password (or got a wrong one): EX_NOPERM, which
    /// share reads as "ask the user for the document's password and try again".
    static let needsPassword: Int32 = 77

    /// The password share passes on standard input (its first line), if any. A terminal is not
    /// read: `customfile import` run by hand is not given one.
    static func passwordFromStandardInput() -> [UInt8]? {
        guard isatty(0) == 0 else { return nil }
        let data = FileHandle.standardInput.readData(ofLength: 4096)
        let line = data.prefix { $0 != 0x0A && $0 != 0x0D }
        return line.isEmpty ? nil : [UInt8](line)
    }

    /// The password in a file (its first line), for exporting.
    static func password(fromFile path: String) throws -> [UInt8] {
        guard let data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
        else { throw CustomFileError("cannot read the password file '\(path)'", status: 66) }
        let line = data.prefix { $0 != 0x0A && $0 != 0x0D }
        guard !line.isEmpty else { throw CustomFileError("the password file '\(path)' is empty", status: 65) }
        return [UInt8](line)
    }

    static func importDocument(_ arguments: [String]) throws {
        guard arguments.count == 1 else { usage() }
        let path = arguments[0]
        let file = (path as NSString).lastPathComponent
        let manager = FileManager.default
        try manager.createDirectory(atPath: store, withIntermediateDirectories: true)
        // The temporary folder is beside the store (same filesystem), so the final move is a rename.
        let temporary = home + "/.import-" + UUID().uuidString.lowercased()
        try manager.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        defer { try? manager.removeItem(atPath: temporary) }
        do {
            _ = try ArchiveExtractor.extract(
                archiveAt: path, into: temporary, limits: ArchiveLimits(maxEntries: 16, maxTotalBytes: 64 << 20),
                password: passwordFromStandardInput())
        } catch .passwordRequired {
            throw CustomFileError("'\(file)' is protected by a password", status: needsPassword)
        } catch .wrongPassword {
            throw CustomFileError("the password does not open '\(file)'", status: needsPassword)
        } catch {
            throw CustomFileError("'\(file)' is not a valid CustomFile document: \(error)", status: 65)
        }
        guard let data = manager.contents(atPath: temporary + "/texts.plist"),
            let texts = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        else {
            throw CustomFileError(
                "'\(file)' is not a valid CustomFile document: it has no readable texts.plist", status: 65)
        }
        guard let title = texts["title"] as? String, !title.isEmpty, let text = texts["text"] as? String else {
            throw CustomFileError(
                "'\(file)' is not a valid CustomFile document: texts.plist needs 'title' and 'text'", status: 65)
        }
        let document = temporary + "/document"
        try manager.createDirectory(atPath: document, withIntermediateDirectories: false)
        let clean = try PropertyListSerialization.data(
            fromPropertyList: ["title": title, "text": text], format: .xml, options: 0)
        try clean.write(to: URL(fileURLWithPath: document + "/texts.plist"))
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: temporary + "/photo0.png", isDirectory: &isDirectory), !isDirectory.boolValue {
            guard let photo = manager.contents(atPath: temporary + "/photo0.png"),
                photo.starts(with: [0x89, 0x50, 0x4E, 0x47])
            else {
                throw CustomFileError(
                    "'\(file)' is not a valid CustomFile document: photo0.png is not a PNG", status: 65)
            }
            try photo.write(to: URL(fileURLWithPath: document + "/photo0.png"))
        }
        var base = title.replacingOccurrences(of: "/", with: "-")
        if base.hasPrefix(".") { base = "Document" }
        // One import at a time picks a name, so two imports never take the same one.
        let lock = open(home + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw CustomFileError("cannot lock the store '\(store)'", status: 73) }
        defer { close(lock) }
        flock(lock, LOCK_EX)
        var name = base
        var number = 1
        while manager.fileExists(atPath: store + "/" + name) {
            number += 1
            guard number < 1000 else { throw CustomFileError("no free name for '\(base)' in the store", status: 73) }
            name = "\(base) (\(number))"
        }
        guard rename(document, store + "/" + name) == 0 else {
            throw CustomFileError("cannot save '\(name)' in the store '\(store)'", status: 73)
        }
        print("Added \"\(title)\" to CustomFile as \(name).")
    }

    static func list() throws {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: store)) ?? []).filter { !$0.hasPrefix(".") }
        for name in names.sorted() {
            guard let data = FileManager.default.contents(atPath: store + "/" + name + "/texts.plist"),
                let texts = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
            else { continue }
            let photo =
                FileManager.default.fileExists(atPath: store + "/" + name + "/photo0.png") ? " (with a photo)" : ""
            print("\(name): \(texts["title"] as? String ?? "?"): \(texts["text"] as? String ?? "")\(photo)")
        }
    }

    static func sample(_ arguments: [String]) throws {
        var arguments = arguments
        let title = option("--title", in: &arguments) ?? "Untitled"
        let text = option("--text", in: &arguments) ?? ""
        let password = try option("--password-file", in: &arguments).map(password(fromFile:))
        var photo = false
        if let index = arguments.firstIndex(of: "--photo") {
            arguments.remove(at: index)
            photo = true
        }
        guard arguments.count == 1 else { usage() }
        try write(arguments[0], title: title, text: text, photo: photo ? tinyPNG : nil, password: password)
    }

    /// Writes a stored document as a `.mtt`, protected by a password if one is given.
    static func export(_ arguments: [String]) throws {
        var arguments = arguments
        let password = try option("--password-file", in: &arguments).map(password(fromFile:))
        guard arguments.count == 2, !arguments[0].contains("/") else { usage() }
        let folder = store + "/" + arguments[0]
        guard let data = FileManager.default.contents(atPath: folder + "/texts.plist"),
            let texts = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let title = texts["title"] as? String, let text = texts["text"] as? String
        else { throw CustomFileError("no document '\(arguments[0])' in the store '\(store)'", status: 66) }
        let photo = FileManager.default.contents(atPath: folder + "/photo0.png").map { [UInt8]($0) }
        try write(arguments[1], title: title, text: text, photo: photo, password: password)
    }

    /// A `.mtt`: a zip of texts.plist and photo0.png, every entry encrypted with AES-256 when a
    /// password is given (ShareArchive's writer, libarchive underneath).
    static func write(_ path: String, title: String, text: String, photo: [UInt8]?, password: [UInt8]?) throws {
        let writer = try ArchiveWriter(path: path, format: .zip, password: password)
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["title": title, "text": text], format: .xml, options: 0)
        try writer.addFile("texts.plist", contents: [UInt8](plist))
        if let photo { try writer.addFile("photo0.png", contents: photo) }
        try writer.close()
    }

    /// Removes `--name value` from the arguments and returns the value.
    static func option(_ name: String, in arguments: inout [String]) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...(index + 1))
        return value
    }

    /// A 1×1 PNG, the sample's photo.
    static let tinyPNG: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
        0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x38, 0x60, 0xA0, 0xF0,
        0x1F, 0x00, 0x04, 0xD4, 0x02, 0x10, 0x33, 0x74, 0x88, 0x99, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
        0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]
}

struct CustomFileError: Error {
    var message: String
    var status: Int32
    init(_ message: String, status: Int32) {
        self.message = message
        self.status = status
    }
}
