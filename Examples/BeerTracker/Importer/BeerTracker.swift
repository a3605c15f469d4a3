// beertracker: the BeerTracker example application's command line and share importer.
//
// A beer is a property list (`.btkr`, application/beertracker) with `name` (text), `rating`
// (a whole number from 1 to 5), an optional `note` and an optional `image` (PNG or JPEG bytes:
// `<data>` in XML, which is base64, or a base64 string). `beertracker import FILE` is the
// ShareImporter command of Info.plist: it validates the required keys, saves the image, appends
// the beer to the list and exits 0, and share then lets the inbox copy go. An invalid file is
// refused with a clear message and a non-zero status, so share keeps it in its inbox.
//
// The store is $XDG_DATA_HOME/BeerTracker (else ~/.local/share/BeerTracker): beers.plist and Images/.

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

@main
struct BeerTracker {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first else { usage() }
        arguments.removeFirst()
        do {
            switch command {
            case "import": try importBeer(arguments)
            case "list": try list()
            case "sample": try sample(arguments)
            default: usage()
            }
        } catch let error as BeerError {
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
                usage: beertracker import <file.btkr>      add a received beer to the list
                       beertracker list                    list the beers
                       beertracker sample <file.btkr> --name <name> --rating <1-5> [--note <text>] [--image]

                """.utf8))
        exit(64)
    }

    static var store: String {
        let environment = ProcessInfo.processInfo.environment
        let data =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return data + "/BeerTracker"
    }

    // MARK: import

    static func importBeer(_ arguments: [String]) throws {
        guard arguments.count == 1 else { usage() }
        let path = arguments[0]
        let file = (path as NSString).lastPathComponent
        var info = stat()
        guard stat(path, &info) == 0 else { throw BeerError("cannot read '\(file)'", status: 66) }
        guard info.st_size <= 16 << 20 else { throw BeerError("'\(file)' is too large to be a beer", status: 65) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BeerError("cannot read '\(file)'", status: 66)
        }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw BeerError("'\(file)' is not a valid beer: it is not a property list", status: 65)
        }
        guard let beer = plist as? [String: Any] else {
            throw BeerError("'\(file)' is not a valid beer: its top level is not a dictionary", status: 65)
        }
        guard let nameValue = beer["name"] else {
            throw BeerError("'\(file)' is not a valid beer: the required key 'name' is missing", status: 65)
        }
        guard let name = nameValue as? String, !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw BeerError("'\(file)' is not a valid beer: 'name' must be non-empty text", status: 65)
        }
        guard let ratingValue = beer["rating"] else {
            throw BeerError("'\(file)' is not a valid beer: the required key 'rating' is missing", status: 65)
        }
        guard let rating = ratingValue as? Int, (1...5).contains(rating) else {
            throw BeerError("'\(file)' is not a valid beer: 'rating' must be a whole number from 1 to 5", status: 65)
        }
        let note = beer["note"] as? String
        var image: Data?
        if let value = beer["image"] {
            if let bytes = value as? Data {
                image = bytes
            } else if let text = value as? String,
                let bytes = Data(base64Encoded: text, options: .ignoreUnknownCharacters)
            {
                image = bytes
            } else {
                throw BeerError("'\(file)' is not a valid beer: 'image' must be base64 image data", status: 65)
            }
        }
        var record: [String: Any] = ["name": name, "rating": rating, "added": Date()]
        if let note { record["note"] = note }
        try withLockedStore {
            if let image {
                let ext: String
                if image.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
                    ext = "png"
                } else if image.starts(with: [0xFF, 0xD8, 0xFF]) {
                    ext = "jpg"
                } else {
                    throw BeerError("'\(file)' is not a valid beer: 'image' is neither PNG nor JPEG", status: 65)
                }
                let imageName = UUID().uuidString.lowercased() + "." + ext
                try FileManager.default.createDirectory(atPath: store + "/Images", withIntermediateDirectories: true)
                try image.write(to: URL(fileURLWithPath: store + "/Images/" + imageName), options: .atomic)
                record["image"] = imageName
            }
            var beers = try loadBeers()
            beers.append(record)
            let out = try PropertyListSerialization.data(fromPropertyList: beers, format: .xml, options: 0)
            try out.write(to: URL(fileURLWithPath: store + "/beers.plist"), options: .atomic)
        }
        print("Added \(name) (\(rating)/5) to BeerTracker.")
    }

    /// Runs `body` holding an exclusive lock on the store, so two imports at once do not lose a beer.
    static func withLockedStore(_ body: () throws -> Void) throws {
        do {
            try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        } catch {
            throw BeerError("cannot create the store '\(store)'", status: 73)
        }
        let fd = open(store + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BeerError("cannot lock the store '\(store)'", status: 73) }
        defer { close(fd) }
        flock(fd, LOCK_EX)
        try body()
    }

    static func loadBeers() throws -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: store + "/beers.plist") else { return [] }
        guard let beers = try PropertyListSerialization.propertyList(from: data, format: nil) as? [[String: Any]] else {
            throw BeerError("the list '\(store)/beers.plist' is damaged", status: 65)
        }
        return beers
    }

    // MARK: list, sample

    static func list() throws {
        for beer in try loadBeers() {
            let name = beer["name"] as? String ?? "?"
            let rating = beer["rating"] as? Int ?? 0
            var line = "\(name): \(rating)/5"
            if let note = beer["note"] as? String { line += ", \(note)" }
            if let image = beer["image"] as? String { line += " [Images/\(image)]" }
            print(line)
        }
    }

    static func sample(_ arguments: [String]) throws {
        var arguments = arguments
        func option(_ name: String) -> String? {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
            let value = arguments[index + 1]
            arguments.removeSubrange(index...(index + 1))
            return value
        }
        var beer: [String: Any] = [:]
        if let name = option("--name") { beer["name"] = name }
        if let rating = option("--rating") { beer["rating"] = Int(rating) ?? rating }
        if let note = option("--note") { beer["note"] = note }
        if let index = arguments.firstIndex(of: "--image") {
            arguments.remove(at: index)
            beer["image"] = Data(tinyPNG)
        }
        guard arguments.count == 1 else { usage() }
        let data = try PropertyListSerialization.data(fromPropertyList: beer, format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: arguments[0]))
    }

    /// A 1×1 PNG, the sample beer's picture.
    static let tinyPNG: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
        0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x38, 0x60, 0xA0, 0xF0,
        0x1F, 0x00, 0x04, 0xD4, 0x02, 0x10, 0x33, 0x74, 0x88, 0x99, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
        0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]
}

struct BeerError: Error {
    var message: String
    var status: Int32
    init(_ message: String, status: Int32) {
        self.message = message
        self.status = status
    }
}
