import Foundation
import ShareTestSupport
import Testing

/// Simulated hosts running the real `share` binary, each user with its own identity and folders.
extension SimulatedLAN {
    /// The namespace prefix of this suite's LANs.
    static let networkPrefix = "shnet"

    /// The built `share` binary.
    static let share: String? = builtExecutable("share")

    /// The ShareDiscoveryProbe binary (used to publish a forged service).
    static let probe: String? = builtExecutable("ShareDiscoveryProbe")

    /// Whether the suite runs: when the machine can, or when required (and then fails).
    static var networkShouldRun: Bool { isRequired || (missingCapabilities.isEmpty && share != nil && probe != nil) }

    /// Why it is skipped.
    static var networkSkipNote: Comment {
        Comment(rawValue: share == nil || probe == nil ? "build the package first (share, ShareDiscoveryProbe)" : skipReason)
    }

    /// `share ARGUMENTS` on `host` of the LANs of `prefix` as `user`, on a pseudo-terminal (each word
    /// quoted for the shell): a person at that machine.
    static func shareTerminal(
        on host: String, as user: LANUser, prefix: String, _ arguments: [String]
    ) throws -> PseudoTerminalProcess {
        let words = [script, "run", host, try #require(share)] + arguments
        let environment = Self.environment(prefix: prefix).merging(user.environment) { $1 }
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return PseudoTerminalProcess(command: quoted.joined(separator: " "), environment: environment)
    }

    /// Starts `share` on a host as `user`.
    func share(on host: String, as user: LANUser, _ arguments: [String]) throws -> HostProcess {
        guard let share = Self.share else { throw HarnessError(description: "the share binary was not built") }
        return try run(
            on: host, share, arguments, environment: user.environment,
            label: "share \(arguments.first ?? "") on \(host)", separateStandardError: true)
    }

    /// Runs `share` on a host to the end.
    func runShare(
        on host: String, as user: LANUser, _ arguments: [String], timeout: Duration = .seconds(60)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try share(on: host, as: user, arguments)
        guard let status = await process.exitStatus(within: timeout) else {
            process.signal(SIGKILL)
            throw HarnessError(description: "share \(arguments) on \(host) did not finish in \(timeout):\n\(process.transcript)")
        }
        // Let the reader threads take the last lines.
        try await Task.sleep(for: .milliseconds(50))
        return (status, process.lines.joined(separator: "\n"), process.errorLines.joined(separator: "\n"))
    }
}

/// A user of a simulated host: home, config and data folders of its own.
struct LANUser {
    let name: String
    let home: String
    let environment: [String: String]

    init(_ name: String, in directory: TemporaryDirectory) {
        self.name = name
        home = directory.at(name)
        FileTree.makeFolder(home)
        environment = [
            "HOME": home, "SHARE_CONFIG_DIR": home + "/.config/share", "XDG_CONFIG_HOME": home + "/.config",
            "XDG_DATA_HOME": home + "/.local/share", "XDG_DOWNLOAD_DIR": home + "/Downloads",
        ]
    }

    /// The receive folder.
    var downloads: String { home + "/Downloads" }
}

/// One JSON line, parsed.
func jsonObject(_ text: some StringProtocol) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}

extension HostProcess {
    /// Waits for a JSON event line `{"event": name, ...}` and returns it.
    @discardableResult
    func waitForEvent(
        _ name: String, after: Int = -1, within timeout: Duration = .seconds(15), where predicate: ([String: Any]) -> Bool = { _ in true }
    ) async throws -> (index: Int, object: [String: Any]) {
        let found = try await waitForLine("\(name) event", after: after, within: timeout) { line in
            guard let object = jsonObject(line) else { return false }
            return object["event"] as? String == name && predicate(object)
        }
        return (found.index, jsonObject(found.line) ?? [:])
    }
}
