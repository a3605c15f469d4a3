import Foundation
import Glibc
import Synchronization

/// A process running on a simulated host (usually ShareDiscoveryProbe), whose output
/// lines are collected as they arrive by a reader thread of its own.
///
/// `@unchecked Sendable`: `child` is thread-safe for the calls made here (descriptors and pid
/// are immutable; exit status is polled from one task at a time); the collected output sits
/// behind a Mutex.
final class HostProcess: @unchecked Sendable {
    /// What the process is, for messages ("publish on a").
    let label: String
    private let child: Subprocess
    private let output = Mutex<(lines: [ProbeLine], raw: [String], ended: Bool)>(([], [], false))

    /// Starts `executable` with `arguments`; stdout and stderr are collected line by line.
    init(label: String, executable: String, arguments: [String], environment: [String: String]) throws {
        self.label = label
        child = try Subprocess(executable: executable, arguments: arguments, environment: environment, stdinPipe: true)
        let descriptor = child.output
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            var pending: [UInt8] = []
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                pending.append(contentsOf: buffer[0..<count])
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    record(Data(pending[..<newline]))
                    pending.removeSubrange(...newline)
                }
            }
            if !pending.isEmpty { record(Data(pending)) }
            output.withLock { $0.ended = true }
        }
    }

    deinit {
        child.terminate()
    }

    private func record(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let line = try? JSONDecoder().decode(ProbeLine.self, from: data)
        output.withLock { output in
            output.raw.append(text)
            if let line { output.lines.append(line) }
        }
    }

    /// The process id.
    var pid: Int32 { child.pid }

    /// Every probe line so far.
    var lines: [ProbeLine] { output.withLock { $0.lines } }

    /// Everything printed so far, for failure messages.
    var transcript: String { output.withLock { $0.raw.joined(separator: "\n") } }

    /// Waits until a line after index `after` satisfies `predicate`.
    ///
    /// - Returns: the line's index and the line.
    /// - Throws: ``HarnessError`` with the transcript when `timeout` passes first or the
    ///   output ends without such a line.
    @discardableResult
    func waitFor(
        _ what: String, after: Int = -1, within timeout: Duration, where predicate: (ProbeLine) -> Bool
    ) async throws -> (index: Int, line: ProbeLine) {
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

    /// Closes the process's stdin: the probe then closes its publisher or browser and exits.
    func closeInput() {
        child.closeInput()
    }

    /// Waits for the process to exit and returns its status, or nil after `timeout`.
    func exitStatus(within timeout: Duration) async -> Int32? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if let status = child.reap(block: false) { return status }
            if clock.now >= deadline { return nil }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { return nil }
        }
    }

    /// Stops the process (SIGTERM) if it still runs.
    func terminate() {
        child.terminate()
    }
}
