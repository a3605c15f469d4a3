import Foundation
import ShareTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// One simulated user on this machine: a home folder and a config folder of its own, so several
/// identities can talk to each other on loopback.
struct TestMachine {
    let home: String
    let config: String
    let environment: [String: String]

    /// `$XDG_DATA_HOME/share/Inbox`: where transfers are staged and documents wait for their import.
    var inbox: String { home + "/.local/share/share/Inbox" }
    /// `$XDG_DATA_HOME`.
    var dataHome: String { home + "/.local/share" }

    /// - Parameter extra: more environment for every command it runs (e.g. shorter waits).
    init(_ name: String, in directory: TemporaryDirectory, extra: [String: String] = [:]) {
        home = directory.at(name)
        config = directory.at(name + "/.config/share")
        FileTree.makeFolder(home)
        environment = ShareBinary.environment(home: home, config: config, extra: extra)
        _ = ShareBinary.run(["identity", "set-name", name], environment: environment)
    }

    func run(_ arguments: [String], stdin: String? = nil, timeout: Duration = .seconds(120)) -> ShareBinary.Result {
        ShareBinary.run(arguments, environment: environment, stdin: stdin, timeout: timeout)
    }

    /// ``run(_:stdin:timeout:)`` without holding a thread of the cooperative pool.
    func run(_ arguments: [String], stdin: String? = nil, timeout: Duration = .seconds(120)) async -> ShareBinary.Result {
        await ShareBinary.run(arguments, environment: environment, stdin: stdin, timeout: timeout)
    }

    /// `share ARGUMENTS` on a pseudo-terminal of its own, as a person runs it, with this machine's
    /// environment and `extra` variables on top.
    func interactive(_ arguments: [String], extra: [String: String] = [:]) -> PseudoTerminalProcess {
        let command = ([ShareBinary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return PseudoTerminalProcess(command: command, environment: environment.merging(extra) { $1 })
    }

    /// Starts `share` in the background (through `launcher`, when given: ``ShareBinary/start``).
    func start(_ arguments: [String], launcher: [String] = []) -> RunningShare {
        ShareBinary.start(arguments, environment: environment, launcher: launcher)
    }
}

/// Parses one line of JSON into a dictionary.
func jsonObject(_ line: some StringProtocol) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
}

/// The JSON lines of an output, parsed.
func jsonLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap(jsonObject)
}

/// The Info.plist of an application `name` (`com.example.<name, lowercased>`) that exports the type
/// `com.example.<name>.<ext>` (plain text, extension `ext`) and imports it with a `command` importer
/// running `arguments` (plist XML); `keys` adds ShareImporter keys (plist XML: `Timeout`, `Folder`).
func commandManifest(name: String, ext: String, arguments: String, keys: String = "") -> String {
    let id = "com.example." + name.lowercased()
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
          <key>CFBundleIdentifier</key><string>\(id)</string>
          <key>CFBundleName</key><string>\(name)</string>
          <key>UTExportedTypeDeclarations</key><array><dict>
            <key>UTTypeIdentifier</key><string>\(id).\(ext)</string>
            <key>UTTypeConformsTo</key><array><string>public.plain-text</string></array>
            <key>UTTypeTagSpecification</key><dict>
              <key>public.filename-extension</key><array><string>\(ext)</string></array></dict>
          </dict></array>
          <key>CFBundleDocumentTypes</key><array><dict>
            <key>LSItemContentTypes</key><array><string>\(id).\(ext)</string></array>
            <key>LSHandlerRank</key><string>Owner</string>
          </dict></array>
          <key>ShareImporter</key><dict>
            <key>Kind</key><string>command</string>
            <key>Arguments</key><array>\(arguments)</array>
            \(keys)
          </dict>
        </dict></plist>
        """
}

/// Makes the application folder `name` in `directory`: an executable `import` holding `script`, and
/// an Info.plist (``commandManifest(name:ext:arguments:keys:)``) that runs `./import %f` for documents
/// ending in `.ext`; returns the Info.plist's path, for `share types register`.
func scriptImporter(_ name: String, ext: String, script: String, keys: String = "", in directory: TemporaryDirectory)
    -> String
{
    let app = directory.at(name)
    FileTree.makeFolder(app)
    FileTree.writeText(app + "/import", script)
    chmod(app + "/import", 0o755)
    FileTree.writeText(
        app + "/Info.plist",
        commandManifest(name: name, ext: ext, arguments: "<string>./import</string><string>%f</string>", keys: keys))
    return app + "/Info.plist"
}

/// The example applications of Examples/ and their built programs.
enum ExampleApps {
    /// The repository's Examples folder.
    static var folder: String {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.appendingPathComponent("Examples").path
    }

    /// An example's manifest, e.g. `BeerTracker/Info.plist`.
    static func manifest(_ relative: String) -> String { folder + "/" + relative }

    /// A built example program (next to the `share` binary).
    static func tool(_ name: String) -> String {
        (ShareBinary.path as NSString).deletingLastPathComponent + "/" + name
    }
}

extension TestMachine {
    /// Runs an example program as this user (its output must fit in a pipe buffer).
    func runTool(_ name: String, _ arguments: [String], in directory: String? = nil) async -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ExampleApps.tool(name))
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do {
            try process.run()
        } catch {
            return (-1, "", "cannot run \(name): \(error); build it first (swift build)")
        }
        while process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        process.waitUntilExit()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }
}
