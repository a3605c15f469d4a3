import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Debian's Chromium, headless, as a phone's browser stands in for in the tests of `share send
/// --link`: it reads a page (`--dump-dom`: the DOM after parsing, so what it shows is what a
/// browser made of the HTML) and downloads a link into a folder with its own download behaviour
/// (the name from Content-Disposition, `.crdownload` until the last byte arrived).
public struct HeadlessChromium: Sendable {
    public static let path = "/usr/bin/chromium"
    /// Whether Chromium is installed (`make deps` installs it).
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }
    /// curl, which the same tests use for what a browser does not show (statuses, JSON).
    public static let curl = "/usr/bin/curl"
    /// Whether curl is installed.
    public static var curlIsInstalled: Bool { FileManager.default.isExecutableFile(atPath: curl) }

    /// Where each run's profile folder is made.
    let profiles: String
    /// Where downloads land.
    public let downloads: String
    /// What Chromium is started through (`lan.sh run HOST`), and the environment that needs.
    let launcher: [String]
    let environment: [String: String]

    /// A browser downloading into `dir/NAME-downloads`, started through `launcher` (e.g. on a
    /// simulated host) with `environment` added. Each run of Chromium gets a profile of its own:
    /// one that just ended may still hold its profile's lock, and a second Chromium on that
    /// profile would hand its address to the one ending.
    public init(_ name: String, in dir: TemporaryDirectory, launcher: [String] = [], environment: [String: String] = [:]) {
        self.launcher = launcher
        self.environment = environment
        profiles = dir.at(name + "-profiles")
        downloads = dir.at(name + "-downloads")
        FileTree.makeFolder(profiles)
        FileTree.makeFolder(downloads)
    }

    /// A new profile that downloads into ``downloads`` without asking.
    private func newProfile() -> String {
        let profile = profiles + "/" + UUID().uuidString
        FileTree.makeFolder(profile + "/Default")
        FileTree.writeText(
            profile + "/Default/Preferences",
            #"{"download":{"default_directory":"\#(downloads)","prompt_for_download":false}}"#)
        return profile
    }

    /// Chromium runs as root in the tests, which needs --no-sandbox.
    private func flags(_ profile: String) -> [String] {
        ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile)"]
    }

    /// The DOM of `url` after Chromium parsed it.
    public func dom(_ url: String) throws -> String {
        let process = try run(flags(newProfile()) + ["--dump-dom", url], keepingOutput: true)
        let output = process.readToEnd()
        process.reap(block: true)
        return String(decoding: output, as: UTF8.self)
    }

    /// Opens `url`, which answers with a download, and returns the path of the file once it is
    /// complete (`size` bytes, no longer `.crdownload`); throws when none came within `timeout`.
    public func download(_ url: String, size: Int, timeout: Duration = .seconds(30)) throws -> String {
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: downloads)) ?? [])
        let process = try run(flags(newProfile()) + [url], keepingOutput: false)
        defer {
            process.terminate()
            process.reap(block: true)
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let names = Set((try? FileManager.default.contentsOfDirectory(atPath: downloads)) ?? []).subtracting(before)
            // Chromium writes into ".org.chromium.Chromium.*" or "*.crdownload" first, and renames when done.
            for name in names where !name.hasSuffix(".crdownload") && !name.hasPrefix(".") {
                let path = downloads + "/" + name
                var info = stat()
                if stat(path, &info) == 0, Int(info.st_size) == size { return path }
            }
            usleep(50_000)
        }
        let found = (try? FileManager.default.contentsOfDirectory(atPath: downloads)) ?? []
        throw HarnessError(description: "Chromium downloaded no file of \(size) bytes from \(url) in \(timeout); found \(found)")
    }

    /// Starts Chromium with `arguments`; its log (and its output, unless kept) goes to /dev/null, so
    /// that no pipe nobody reads fills up and stops it. In a UTF-8 locale: otherwise it cannot name
    /// a download `Café.txt` and leaves it unconfirmed.
    private func run(_ arguments: [String], keepingOutput: Bool) throws -> Subprocess {
        let words = (launcher + [Self.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = "exec " + words.joined(separator: " ") + (keepingOutput ? " 2>/dev/null" : " >/dev/null 2>&1")
        return try Subprocess(
            executable: "/bin/sh", arguments: ["-c", command], environment: environment.merging(["HOME": profiles, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]) { $1 },
            stdinPipe: false)
    }

    /// The targets of the page's links (`href`), with `&amp;` read as `&`.
    public static func links(in dom: String) -> [String] {
        dom.components(separatedBy: "href=\"").dropFirst().compactMap { rest in
            rest.split(separator: "\"", maxSplits: 1).first.map { $0.replacingOccurrences(of: "&amp;", with: "&") }
        }
    }
}
