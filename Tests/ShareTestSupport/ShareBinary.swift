public import Foundation

#if canImport(Glibc)
public import Glibc
#endif

/// Runs the built `share` executable, the way a user would.
public enum ShareBinary {
    /// The path of the built executable: `$SHARE_BINARY`, else `.build/debug/share` of this package.
    public static var path: String {
        if let explicit = ProcessInfo.processInfo.environment["SHARE_BINARY"] { return explicit }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        for candidate in [".build/debug/share", ".build/x86_64-unknown-linux-gnu/debug/share"] {
            let path = root.appendingPathComponent(candidate).path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return root.appendingPathComponent(".build/debug/share").path
    }

    /// The result of a finished run.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `share` with `arguments` and waits (at most `timeout`).
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil, timeout: Duration = .seconds(120)
    ) -> Result {
        let process = start(arguments, environment: environment, stdin: stdin)
        return process.wait(timeout: timeout)
    }

    /// Runs `share` and waits without holding a thread of Swift's cooperative pool (so other
    /// tests' async work is not starved while a process runs).
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil, timeout: Duration = .seconds(120)
    ) async -> Result {
        let process = start(arguments, environment: environment, stdin: stdin)
        return await process.wait(timeout: timeout)
    }

    /// Starts `share` in the background; with a `launcher` (a program and its arguments, such as
    /// `prlimit --nofile=256:8192`), through it: the launcher must exec `share` in its own process.
    public static func start(
        _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil, launcher: [String] = []
    ) -> RunningShare {
        RunningShare(arguments: arguments, environment: environment, stdin: stdin, launcher: launcher)
    }

    /// A base environment for a test: its own HOME and config folder, no COLUMNS.
    public static func environment(home: String, config: String, extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home
        env["SHARE_CONFIG_DIR"] = config
        env["XDG_CONFIG_HOME"] = home + "/.config"
        env["XDG_DATA_HOME"] = home + "/.local/share"
        env.removeValue(forKey: "XDG_DOWNLOAD_DIR")
        env.removeValue(forKey: "COLUMNS")
        // No desktop session but one a test starts (DesktopSession): a receiver without a terminal
        // would otherwise ask on the desktop of whoever runs the tests.
        env.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        env.removeValue(forKey: "XDG_RUNTIME_DIR")
        // Tests on this machine's own network never announce it to LocalSend devices (multicast on
        // its real interfaces); the tests between simulated hosts look for them.
        env["SHARE_LOCALSEND_WAIT"] = "0"
        for (key, value) in extra { env[key] = value }
        return env
    }
}

/// A `share` process started by a test; its output is collected as it runs.
public final class RunningShare: @unchecked Sendable {
    // @unchecked: the process and pipes are used by one test at a time; output buffers are locked.
    public let process = Process()
    /// The arguments it runs with (its JSON output is checked against docs/schemas: ``JSONContract``).
    public let arguments: [String]
    private var checked = false
    private let outPipe = Pipe()
    private let errPipe = Pipe()
    private let lock = NSLock()
    private var outData = Data()
    private var errData = Data()

    init(arguments: [String], environment: [String: String], stdin: String?, launcher: [String] = []) {
        self.arguments = arguments
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = Array(launcher.dropFirst()) + [ShareBinary.path] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: ShareBinary.path)
            process.arguments = arguments
        }
        process.environment = environment.isEmpty ? nil : environment
        process.standardOutput = outPipe
        process.standardError = errPipe
        if let stdin {
            let inPipe = Pipe()
            process.standardInput = inPipe
            inPipe.fileHandleForWriting.write(Data(stdin.utf8))
            try? inPipe.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        }
        outPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.outData.append(data) }
        }
        errPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.errData.append(data) }
        }
        do {
            try process.run()
        } catch {
            preconditionFailure("cannot start \(ShareBinary.path): \(error); build it first (swift build)")
        }
    }

    /// A test that fails before it stops its process must not leave it running.
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        if !checked { JSONContract.check(arguments: arguments, stdout: stdout, exitStatus: nil, complete: false) }
    }

    /// Output so far.
    public var stdout: String { lock.withLock { String(decoding: outData, as: UTF8.self) } }
    /// Errors so far.
    public var stderr: String { lock.withLock { String(decoding: errData, as: UTF8.self) } }

    /// Waits until stdout contains `text` (or the timeout passes); returns whether it did.
    @discardableResult
    public func waitForOutput(containing text: String, timeout: Duration = .seconds(30)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if stdout.contains(text) || stderr.contains(text) { return true }
            if !process.isRunning { return stdout.contains(text) || stderr.contains(text) }
            usleep(20_000)
        }
        return false
    }

    /// ``waitForOutput(containing:timeout:)`` without holding a thread of the cooperative pool.
    @discardableResult
    public func waitForOutput(containing text: String, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if stdout.contains(text) || stderr.contains(text) { return true }
            if !process.isRunning { return stdout.contains(text) || stderr.contains(text) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// ``listeningPort(timeout:)`` without holding a thread of the cooperative pool.
    public func listeningPort(timeout: Duration = .seconds(30)) async -> UInt16? {
        guard await waitForOutput(containing: "\"event\":\"listening\"", timeout: timeout) else { return nil }
        guard let range = stdout.range(of: "\"port\":") else { return nil }
        return UInt16(stdout[range.upperBound...].prefix { $0.isNumber })
    }

    /// ``wait(timeout:)`` without holding a thread of the cooperative pool while the process runs.
    public func wait(timeout: Duration = .seconds(120)) async -> ShareBinary.Result {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        return finish()
    }

    /// The port from the `listening` JSON line of `share receive --json`.
    public func listeningPort(timeout: Duration = .seconds(30)) -> UInt16? {
        guard waitForOutput(containing: "\"event\":\"listening\"", timeout: timeout) else { return nil }
        guard let range = stdout.range(of: "\"port\":") else { return nil }
        return UInt16(stdout[range.upperBound...].prefix { $0.isNumber })
    }

    /// Sends a signal.
    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Stops the process with SIGSTOP, as a sleeping laptop stops, and waits until it is stopped.
    public func suspend() throws { try ProcessControl.suspend(process.processIdentifier) }

    /// Continues it after ``suspend()`` (SIGCONT).
    public func resume() throws { try ProcessControl.resume(process.processIdentifier) }

    /// Kills it at once (SIGKILL, like `kill -9`).
    public func forceKill() { if process.isRunning { ProcessControl.forceKill(process.processIdentifier) } }

    /// Waits for exit (killing it after `timeout`) and returns the collected result.
    public func wait(timeout: Duration = .seconds(120)) -> ShareBinary.Result {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        return finish()
    }

    /// Kills the process if it still runs, reaps it and collects the rest of its output.
    private func finish() -> ShareBinary.Result {
        let killed = process.isRunning
        if killed {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        // Let the readability handlers drain what is left.
        outPipe.fileHandleForReading.readabilityHandler = nil
        errPipe.fileHandleForReading.readabilityHandler = nil
        let restOut = (try? outPipe.fileHandleForReading.readToEnd()) ?? nil
        let restErr = (try? errPipe.fileHandleForReading.readToEnd()) ?? nil
        lock.withLock {
            if let restOut { outData.append(restOut) }
            if let restErr { errData.append(restErr) }
        }
        let result = ShareBinary.Result(status: process.terminationStatus, stdout: stdout, stderr: stderr)
        if !checked {
            checked = true
            let ended = !killed && process.terminationReason == .exit
            JSONContract.check(
                arguments: arguments, stdout: result.stdout, exitStatus: ended ? result.status : nil, complete: ended)
        }
        return result
    }
}
