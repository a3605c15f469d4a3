public import Foundation
import Glibc
import Synchronization

/// A process running on a simulated host (or locally), whose output lines are collected as they
/// arrive by a reader thread of its own.
///
/// `@unchecked Sendable`: `child` is thread-safe for the calls made here (descriptors and pid
/// are immutable; exit status is polled from one task at a time); the collected output sits
/// behind a Mutex.
public final class HostProcess: @unchecked Sendable {
    /// What the process is, for messages ("publish on a").
    public let label: String
    private let child: Subprocess
    private let output = Mutex<(lines: [String], errors: [String], ended: Bool)>(([], [], false))
    /// The arguments of a `share` it runs, whose stdout is checked against docs/schemas at the end
    /// (``JSONContract``); nil for other programs.
    private let jsonArguments: [String]?

    /// Starts `executable` with `arguments`; stdout is collected line by line, and stderr too
    /// (merged into stdout unless `separateStandardError`).
    public init(
        label: String, executable: String, arguments: [String], environment: [String: String],
        separateStandardError: Bool = false, jsonArguments: [String]? = nil
    ) throws {
        self.label = label
        self.jsonArguments = separateStandardError ? jsonArguments : nil
        child = try Subprocess(
            executable: executable, arguments: arguments, environment: environment, stdinPipe: true,
            separateStandardError: separateStandardError)
        startReader(child.output, errors: false)
        if separateStandardError { startReader(child.errorOutput, errors: true) }
    }

    private func startReader(_ descriptor: Int32, errors: Bool) {
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            var pending: [UInt8] = []
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                pending.append(contentsOf: buffer[0..<count])
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    record(Data(pending[..<newline]), errors: errors)
                    pending.removeSubrange(...newline)
                }
            }
            if !pending.isEmpty { record(Data(pending), errors: errors) }
            if !errors { output.withLock { $0.ended = true } }
        }
    }

    deinit {
        child.terminate()
        if let jsonArguments {
            JSONContract.check(
                arguments: jsonArguments, stdout: lines.map { $0 + "\n" }.joined(), exitStatus: nil, complete: false)
        }
    }

    private func record(_ data: Data, errors: Bool) {
        let text = String(decoding: data, as: UTF8.self)
        output.withLock { output in
            if errors { output.errors.append(text) } else { output.lines.append(text) }
        }
    }

    /// The process id.
    public var pid: Int32 { child.pid }

    /// Every stdout line so far (with stderr, unless it was kept separate).
    public var lines: [String] { output.withLock { $0.lines } }

    /// Every stderr line so far, when stderr is kept separate.
    public var errorLines: [String] { output.withLock { $0.errors } }

    /// Everything printed so far, for failure messages.
    public var transcript: String {
        output.withLock { ($0.lines + ($0.errors.isEmpty ? [] : ["-- stderr --"] + $0.errors)).joined(separator: "\n") }
    }

    /// Waits until a stdout line after index `after` satisfies `predicate`.
    ///
    /// - Returns: the line's index and the line.
    /// - Throws: ``HarnessError`` with the transcript when `timeout` passes first or the
    ///   output ends without such a line.
    @discardableResult
    public func waitForLine(
        _ what: String, after: Int = -1, within timeout: Duration, where predicate: (String) -> Bool
    ) async throws -> (index: Int, line: String) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let (lines, ended) = output.withLock { ($0.lines, $0.ended) }
            if let index = lines.indices.first(where: { $0 > after && predicate(lines[$0]) }) {
                return (index, lines[index])
            }
            if clock.now >= deadline || ended {
                throw HarnessError(
                    description: "\(label): no \(what) within \(timeout)" + (ended ? " (output ended)" : "")
                        + "; output:\n\(transcript)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Writes to the process's stdin.
    public func write(_ text: String) {
        child.write(text)
    }

    /// Closes the process's stdin.
    public func closeInput() {
        child.closeInput()
    }

    /// Waits for the process to exit and returns its status, or nil after `timeout`.
    public func exitStatus(within timeout: Duration) async -> Int32? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if let status = child.reap(block: false) { return status }
            if clock.now >= deadline { return nil }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { return nil }
        }
    }

    /// Sends a signal if the process still runs.
    public func signal(_ number: Int32) {
        child.signal(number)
    }

    /// Stops the process (SIGTERM) if it still runs.
    public func terminate() {
        child.terminate()
    }

    /// Stops the process with SIGSTOP, as a sleeping laptop stops, and waits until it is stopped.
    public func suspend() throws { try ProcessControl.suspend(pid) }

    /// Continues it after ``suspend()`` (SIGCONT).
    public func resume() throws { try ProcessControl.resume(pid) }

    /// Kills it at once (SIGKILL, like `kill -9`); ``exitStatus(within:)`` then says 137.
    public func forceKill() { child.signal(SIGKILL) }
}
