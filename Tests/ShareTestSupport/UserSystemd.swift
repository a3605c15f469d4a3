public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real `systemd --user` for a test (Tests/Service/user-systemd.sh): its own mount namespace,
/// cgroup, runtime folder and home, so it never touches the machine's services.
public final class UserSystemd: Sendable {
    /// The script that runs it.
    public static let script: String = URL(filePath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Service/user-systemd.sh").path

    /// What is missing for it to run here (empty when it can).
    public static let missingCapabilities: [String] = {
        var missing: [String] = []
        if getuid() != 0 { missing.append("not root") }
        for tool in ["/lib/systemd/systemd", "/usr/bin/unshare", "/usr/bin/nsenter", "/usr/bin/systemctl"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            missing.append("no \(tool)")
        }
        return missing
    }()

    /// The manager's state folder: `run` (XDG_RUNTIME_DIR), `home` (its HOME).
    public let state: String
    /// The manager's HOME, which the units it starts get.
    public var home: String { state + "/home" }
    /// Where user units go.
    public var unitFolder: String { home + "/.config/systemd/user" }

    /// Starts a manager with its state in `state` (a folder that does not exist yet).
    public init(state: String) throws {
        self.state = state
        let result = try Self.run(["up", state])
        guard result.status == 0 else {
            Self.stop(state)
            throw HarnessError(description: "systemd --user did not start: \(result.output)")
        }
    }

    /// Stops the manager and everything it started.
    public func down() { Self.stop(state) }

    /// `systemctl --user ARGS`; its status and output.
    @discardableResult
    public func systemctl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try Self.run(["ctl", state] + arguments)
    }

    /// `systemctl --user show UNIT -p PROPERTY --value`.
    public func property(_ unit: String, _ name: String) throws -> String {
        try systemctl(["show", unit, "-p", name, "--value"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func stop(_ state: String) { _ = try? run(["down", state]) }

    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let child = try Subprocess(
            executable: script, arguments: arguments, environment: ProcessInfo.processInfo.environment, stdinPipe: false
        )
        let output = child.readToEnd()
        return (child.reap(block: true) ?? -1, String(decoding: output, as: UTF8.self))
    }
}
