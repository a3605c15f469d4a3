import Foundation
import ShareTestSupport
import Testing

/// localsendd (PyPI, `make localsendd` puts it in .build/localsendd): an independent LocalSend v2
/// peer, run on a simulated host. The hosts have no default route, so it never probes any network
/// but the simulated one.
struct LocalSendDaemon {
    /// The folder localsendd is installed in, when it is.
    static let installation: String? = {
        let root = URL(filePath: SimulatedLAN.script).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: ".build/localsendd").path
        return FileManager.default.fileExists(atPath: root + "/localsendd/__init__.py") ? root : nil
    }()

    let process: HostProcess
    let controlSocket: String
    let home: String

    /// Starts localsendd on `host` as `alias`, accepting without a person (`--unattended`).
    init(
        on host: String, of lan: SimulatedLAN, alias: String, deviceType: String = "mobile", pin: String? = nil,
        unattended: Bool = true, home folder: String? = nil, in dir: TemporaryDirectory
    ) throws {
        let installation = try #require(Self.installation, "localsendd is not installed: run 'make localsendd'")
        home = dir.at(folder ?? "localsend-\(host)")
        FileTree.makeFolder(home + "/Downloads")
        controlSocket = home + "/control.sock"
        process = try lan.run(
            on: host, "/usr/bin/python3",
            [
                "-m", "localsendd", "--alias", alias, "--device-type", deviceType, "--download-dir", home + "/Downloads",
                "--socket", controlSocket, unattended ? "--unattended" : "--no-unattended", "--log-time",
            ] + (pin.map { ["--pin", $0] } ?? []),
            environment: ["PYTHONPATH": installation, "HOME": home, "XDG_CONFIG_HOME": home + "/.config"],
            label: "localsendd on \(host)")
    }

    /// Waits until it serves, and returns the fingerprint it logs (its certificate's SHA-256).
    func fingerprint() async throws -> String {
        let (_, line) = try await process.waitForLine("localsendd's start", within: .seconds(20)) { $0.contains(" fingerprint=") }
        return String(line.components(separatedBy: " fingerprint=").last?.prefix { $0.isHexDigit } ?? "")
    }

    /// The devices it has seen (`localsendctl devices --json`).
    func devices() throws -> [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(try control(["devices", "--json"])))) as? [[String: Any]] ?? []
    }

    /// `localsendctl status --json`, as text (what it is doing, and how its last transfer ended).
    func status() throws -> String {
        String(decoding: try control(["status", "--json"]), as: UTF8.self)
    }

    /// Turns its HTTPS on or off (`localsendctl encryption`); off, it serves plain HTTP.
    func setEncryption(_ on: Bool) throws {
        _ = try control(["encryption", on ? "on" : "off"])
    }

    /// What `localsendctl ARGUMENTS` prints, through its control socket.
    private func control(_ arguments: [String]) throws -> [UInt8] {
        let installation = try #require(Self.installation)
        let child = try Subprocess(
            executable: "/usr/bin/python3", arguments: ["-m", "localsendd.cli", "--socket", controlSocket] + arguments,
            environment: ["PYTHONPATH": installation, "HOME": home], stdinPipe: false)
        let output = child.readToEnd()
        _ = child.reap(block: true)
        return output
    }

    /// `localsendctl send FILES --to DEVICE [--pin PIN] --wait --quiet`: its exit status and what it printed.
    func send(_ files: [String], to device: String, pin: String? = nil) throws -> (status: Int32, output: String) {
        let installation = try #require(Self.installation)
        let child = try Subprocess(
            executable: "/usr/bin/python3",
            arguments: ["-m", "localsendd.cli", "--socket", controlSocket, "send", "--to", device, "--wait", "--quiet"]
                + (pin.map { ["--pin", $0] } ?? []) + files,
            environment: ["PYTHONPATH": installation, "HOME": home], stdinPipe: false)
        let output = child.readToEnd()
        let status = child.reap(block: true)
        return (status ?? -1, String(decoding: output, as: UTF8.self))
    }

    /// Where it puts what it receives.
    var downloads: String { home + "/Downloads" }

    func stop() { process.terminate() }

    /// Stops it and waits until it is gone (its port is free again).
    func stopAndWait() async {
        process.terminate()
        _ = await process.exitStatus(within: .seconds(10))
    }
}
