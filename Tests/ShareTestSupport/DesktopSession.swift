public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A desktop session for a test, without a screen: a private D-Bus session bus
/// (`dbus-daemon`, with no activatable services), and when asked a real notification server from
/// Debian, dunst, on an X server in memory (Xvfb).
///
/// dunst shows what it is sent and, through its context menu, invokes a notification's actions:
/// its menu program (`dmenu` in its configuration) is a script that picks the line the test named
/// with ``invoke(_:of:)``, as a user picking a button would. `dunstctl` closes notifications and
/// lists their history.
public final class DesktopSession: @unchecked Sendable {
    // @unchecked: the processes are started in init and ended in stop(), by one test.
    /// What a process needs to reach this session: `DBUS_SESSION_BUS_ADDRESS` and `DISPLAY`.
    public let environment: [String: String]
    /// The bus address.
    public let busAddress: String
    private let folder: TemporaryDirectory
    private var processes: [Subprocess] = []

    /// What is missing for a session with a notification server.
    public static let missingForServer: [String] = [
        "/usr/bin/dbus-daemon", "/usr/bin/Xvfb", "/usr/bin/dunst", "/usr/bin/dunstctl",
    ]
    .filter { !FileManager.default.isExecutableFile(atPath: $0) }.map { "no \($0)" }

    /// Starts a session bus, and dunst on Xvfb when `notificationServer`.
    public init(notificationServer: Bool) throws {
        let folder = TemporaryDirectory("desktop")
        let config = folder.at("bus.conf")
        let busAddress = "unix:path=" + folder.at("bus")
        FileTree.writeText(
            config,
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(busAddress)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """)
        var environment = ["DBUS_SESSION_BUS_ADDRESS": busAddress, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
        var processes: [Subprocess] = []
        func fail(_ what: String) -> HarnessError {
            Self.stop(processes)
            return HarnessError(description: what)
        }
        processes.append(try Self.daemon("exec dbus-daemon --nofork --config-file=\"$1\"", [config]))
        guard Self.waitFor({ FileManager.default.fileExists(atPath: folder.at("bus")) }) else {
            throw fail("dbus-daemon did not start")
        }
        if notificationServer {
            let xvfb = try Subprocess(
                executable: "/bin/sh", arguments: ["-c", "exec Xvfb -displayfd 3 -nolisten tcp 3>&1 >/dev/null 2>&1"],
                environment: environment, stdinPipe: false)
            processes.append(xvfb)
            guard let display = Self.readLine(xvfb.output) else { throw fail("Xvfb did not start") }
            environment["DISPLAY"] = ":" + display
            let pick = folder.at("pick.sh")
            FileTree.writeText(
                pick,
                "#!/bin/sh\n# dunst's menu: the line the test chose.\ngrep -m1 -F -- \"$(cat '\(folder.at("choice"))')\"\n"
            )
            chmod(pick, 0o755)
            // Each urgency formats its message with its name, so the history shows the urgency dunst saw.
            FileTree.writeText(
                folder.at("dunstrc"),
                "[global]\n    dmenu = \(pick)\n    browser = /bin/true\n"
                    + ["low", "normal", "critical"].map { "[urgency_\($0)]\n    format = \"\($0.uppercased()): %s\"\n" }
                    .joined())
            processes.append(
                try Self.daemon("exec dunst -config \"$1\"", [folder.at("dunstrc")], environment: environment))
        }
        self.folder = folder
        self.busAddress = busAddress
        self.environment = environment
        self.processes = processes
        if notificationServer {
            guard Self.waitFor({ self.dunstctl(["is-paused"]).status == 0 }) else {
                stop()
                throw HarnessError(description: "dunst did not start")
            }
        }
    }

    deinit { stop() }

    /// Ends every process of the session.
    public func stop() {
        Self.stop(processes)
        processes.removeAll()
    }

    private static func stop(_ processes: [Subprocess]) {
        for process in processes.reversed() {
            process.terminate()
            _ = waitFor(timeout: .seconds(5)) { process.reap(block: false) != nil }
        }
    }

    /// Runs `dunstctl` in this session.
    @discardableResult
    public func dunstctl(_ arguments: [String]) -> (status: Int32, output: String) {
        guard
            let child = try? Subprocess(
                executable: "/usr/bin/dunstctl", arguments: arguments, environment: environment, stdinPipe: false)
        else { return (-1, "") }
        let output = child.readToEnd()
        return (child.reap(block: true) ?? -1, String(decoding: output, as: UTF8.self))
    }

    /// How many notifications dunst shows now.
    public func displayed() -> Int {
        Int(dunstctl(["count", "displayed"]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Clicks the action `key` of notification `id` (of any shown notification when nil),
    /// through dunst's context menu.
    public func invoke(_ key: String, of id: UInt32? = nil) {
        FileTree.writeText(folder.at("choice"), id.map { "[\($0),\(key)]" } ?? ",\(key)]")
        dunstctl(["context"])
    }

    /// Dismisses the newest notification as a user would (`dunstctl close`).
    public func dismiss() { dunstctl(["close"]) }

    /// A notification dunst has closed.
    public struct Shown: Sendable {
        public var id: Int
        public var application: String
        public var summary: String
        public var body: String
        /// `LOW`, `NORMAL` or `CRITICAL`: the urgency dunst gave it.
        public var urgency: String
        public var category: String
    }

    /// The notifications dunst has closed, newest first.
    public func history() -> [Shown] {
        let text = dunstctl(["history"]).output
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
            let data = (object["data"] as? [[[String: Any]]])?.first
        else { return [] }
        func field(_ entry: [String: Any], _ name: String) -> Any? { (entry[name] as? [String: Any])?["data"] }
        return data.map { entry in
            let message = field(entry, "message") as? String ?? ""
            return Shown(
                id: field(entry, "id") as? Int ?? -1, application: field(entry, "appname") as? String ?? "",
                summary: field(entry, "summary") as? String ?? "", body: field(entry, "body") as? String ?? "",
                urgency: String(message.prefix { $0 != ":" }), category: field(entry, "category") as? String ?? "")
        }
    }

    private static func daemon(
        _ script: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> Subprocess {
        var env = environment
        env["PATH"] = "/usr/sbin:/usr/bin:/sbin:/bin"
        return try Subprocess(
            executable: "/bin/sh", arguments: ["-c", script + " >/dev/null 2>&1", "sh"] + arguments, environment: env,
            stdinPipe: false)
    }

    private static func readLine(_ fd: Int32, timeout: Duration = .seconds(10)) -> String? {
        let deadline = ContinuousClock.now + timeout
        var bytes: [UInt8] = []
        while ContinuousClock.now < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(fd, &byte, 1) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }

    /// Polls `condition` (blocking) until it holds or `timeout` passes.
    public static func waitFor(timeout: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }
}
