public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a command on a pseudo-terminal through util-linux `script`, so the program sees a
/// terminal on stdin and stderr, as in a user's shell; the test types into it and reads the screen.
public final class PseudoTerminalProcess: @unchecked Sendable {
    // @unchecked: the output buffer is locked; the rest is used by the test's thread.
    private let process = Process()
    private let input = Pipe()
    private let outputPipe = Pipe()
    private let lock = NSLock()
    private var buffer = Data()

    public init(command: String, environment: [String: String]) {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfec", command, "/dev/null"]
        process.environment = environment
        process.standardInput = input
        process.standardOutput = outputPipe
        process.standardError = outputPipe
        outputPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.buffer.append(data) }
        }
        try! process.run()
    }

    /// A test that fails before it ends the command must not leave it running.
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Everything the terminal showed so far.
    public var output: String { lock.withLock { String(decoding: buffer, as: UTF8.self) } }

    /// Waits for `text` to appear.
    public func waitForOutput(containing text: String, timeout: Duration = .seconds(30)) -> Bool {
        Self.poll(timeout) { output.contains(text) }
    }

    /// How much the terminal showed so far, to wait for what comes after it.
    public var mark: Int { lock.withLock { buffer.count } }

    /// Waits for `text` to appear after `mark`.
    public func waitForOutput(containing text: String, after mark: Int, timeout: Duration = .seconds(30)) -> Bool {
        Self.poll(timeout) { output(after: mark).contains(text) }
    }

    /// What the terminal showed after `mark`.
    public func output(after mark: Int) -> String {
        lock.withLock { String(decoding: buffer.dropFirst(mark), as: UTF8.self) }
    }

    /// Types `text` on the terminal.
    public func type(_ text: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    /// Sends `signal` to the programs `script` runs (found among its descendants by name), as a
    /// service manager or `kill` would.
    public func signalProgram(named name: String = "share", _ signal: Int32) {
        for pid in Self.descendants(of: process.processIdentifier) {
            let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if comm == name { kill(pid, signal) }
        }
    }

    /// Every process below `pid`, from /proc.
    public static func descendants(of pid: Int32) -> [Int32] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        let children = text.split(separator: " ").compactMap { Int32($0) }
        return children + children.flatMap { descendants(of: $0) }
    }

    /// Whether the command is still running.
    public var isRunning: Bool { process.isRunning }

    /// Presses Ctrl-C on the terminal (the line discipline sends SIGINT to the program).
    public func interrupt() {
        type("\u{3}")
    }

    /// Waits for the command to end and returns its exit status.
    public func wait(timeout: Duration = .seconds(30)) -> Int32 {
        _ = Self.poll(timeout) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Polls `condition` every 10 ms for up to `timeout`.
    private static func poll(_ timeout: Duration, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }
}
