import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a command on a pseudo-terminal through util-linux `script`, so the program sees a
/// terminal on stdin and stderr, as in a user's shell; the test types into it and reads the screen.
final class PseudoTerminalProcess: @unchecked Sendable {
    // @unchecked: the output buffer is locked; the rest is used by the test's thread.
    private let process = Process()
    private let input = Pipe()
    private let outputPipe = Pipe()
    private let lock = NSLock()
    private var buffer = Data()

    init(command: String, environment: [String: String]) {
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
    var output: String { lock.withLock { String(decoding: buffer, as: UTF8.self) } }

    /// Waits for `text` to appear.
    func waitForOutput(containing text: String, timeout: Duration = .seconds(30)) -> Bool {
        waitUntil(timeout: timeout) { output.contains(text) }
    }

    /// Types `text` on the terminal.
    func type(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Presses Ctrl-C on the terminal (the line discipline sends SIGINT to the program).
    func interrupt() {
        type("\u{3}")
    }

    /// Waits for the command to end and returns its exit status.
    func wait(timeout: Duration = .seconds(30)) -> Int32 {
        _ = waitUntil(timeout: timeout) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
