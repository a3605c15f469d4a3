import ShareSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a `command` importer: a program started directly (fork and exec, never through a shell),
/// with an argument vector, a minimal environment, `/dev/null` as stdin (or a pipe holding only the
/// document's password, when the user gave one), its output captured (the last 64 KiB of each
/// stream), in a process group of its own, confined by its ``ImporterSandbox`` (Landlock), and
/// stopped at its timeout: `SIGTERM` to the whole group, then `SIGKILL` two seconds later.
///
/// The child starts with default signal dispositions and an empty signal mask (a receiver
/// ignores `SIGPIPE`, `SIGINT` and `SIGTERM` itself; an importer must not inherit that), and
/// with every descriptor above 2 closed (`CShareLinux_spawn`).
enum ImporterProcess {
    /// How the program ended.
    enum Termination: Sendable, Hashable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it (not one sent because of the timeout).
        case signaled(Int32)
        /// It ran past its timeout and was stopped.
        case timedOut
        /// It could not be started.
        case couldNotStart(String)
        /// It was stopped because its caller was cancelled.
        case cancelled
    }

    /// The outcome of one run.
    struct Result: Sendable {
        var termination: Termination
        /// The end of its standard output.
        var stdout: String
        /// The end of its standard error.
        var stderr: String

        /// The last non-empty line of stderr (or, failing that, of stdout), for a failure message.
        var lastLine: String? {
            for text in [stderr, stdout] {
                if let line = text.split(whereSeparator: \.isNewline).last(where: {
                    !$0.trimmingCharacters(in: .whitespaces).isEmpty
                }) {
                    return String(line.trimmingCharacters(in: .whitespaces).prefix(500))
                }
            }
            return nil
        }
    }

    /// Bytes of each output stream kept.
    static let captureLimit = 64 * 1024
    /// The most stdin input given to a program: it must fit in a pipe's buffer (4 KiB is the least
    /// POSIX promises), since it is written before the program starts.
    static let maximumInput = 4096
    /// Time between SIGTERM and SIGKILL.
    static let killGrace: Duration = .seconds(2)
    /// The environment variables an importer gets, when the caller has them (`TMPDIR` is then
    /// replaced by the run's scratch folder, see ``ImporterSandbox``).
    static let passedVariables: Set<String> = [
        "PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "TMPDIR",
    ]

    /// The importer's environment: `PATH`, `HOME`, the locale and every `XDG_*` variable from `environment`.
    static func environment(from environment: [String: String]) -> [String: String] {
        var result = environment.filter { passedVariables.contains($0.key) || $0.key.hasPrefix("XDG_") }
        if result["PATH"] == nil { result["PATH"] = "/usr/local/bin:/usr/bin:/bin" }
        return result
    }

    /// Runs `argv` and waits for it (at most `timeout` plus the kill grace).
    /// - Parameters:
    ///   - argv: the program (absolute, or a name looked up in the environment's `PATH`) and its arguments.
    ///   - workingDirectory: where it starts; `nil` for the home folder (or `/`).
    ///   - environment: the full environment to give it (see ``environment(from:)``).
    ///   - timeout: how long it may run.
    ///   - sandbox: what it may touch; `nil` runs it unconfined.
    ///   - cancellation: stops the program early (as at the timeout) when cancelled.
    ///   - input: what the program reads on stdin (at most ``maximumInput`` bytes, written into a
    ///     pipe before it starts, so no file ever holds it); `nil` for `/dev/null`.
    static func run(
        argv: [String], workingDirectory: String?, environment: [String: String], timeout: Duration,
        sandbox: ImporterSandbox? = nil, cancellation: ImportCancellation? = nil, input: [UInt8]? = nil
    ) -> Result {
        guard let name = argv.first, !name.isEmpty else {
            return Result(termination: .couldNotStart("no program to run"), stdout: "", stderr: "")
        }
        guard let program = ChildProcess.locate(name, path: environment["PATH"]) else {
            return Result(
                termination: .couldNotStart(
                    "'\(name)' is not an executable program (searched \(environment["PATH"] ?? ""))"),
                stdout: "", stderr: "")
        }
        let ruleset: LandlockRuleset?
        do {
            ruleset = try sandbox?.ruleset(program: program)
        } catch {
            return Result(termination: .couldNotStart("it could not be confined: \(error)"), stdout: "", stderr: "")
        }
        let standardInput: Int32
        if let input {
            // Written into a pipe before the program starts, so no file ever holds it.
            guard input.count <= maximumInput, let inPipe = LinuxCalls.pipe() else {
                let reason = input.count > maximumInput ? "its input is too long" : POSIX.errorText()
                return Result(termination: .couldNotStart(reason), stdout: "", stderr: "")
            }
            let written = input.withUnsafeBytes { POSIX.writeAll(inPipe.write, $0) }
            close(inPipe.write)
            guard written == nil else {
                close(inPipe.read)
                return Result(termination: .couldNotStart("its input could not be written"), stdout: "", stderr: "")
            }
            standardInput = inPipe.read
        } else {
            standardInput = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard standardInput >= 0 else {
                return Result(termination: .couldNotStart("/dev/null: \(POSIX.errorText())"), stdout: "", stderr: "")
            }
        }
        defer { close(standardInput) }
        guard let outPipe = LinuxCalls.pipe() else {
            return Result(termination: .couldNotStart(POSIX.errorText()), stdout: "", stderr: "")
        }
        guard let errPipe = LinuxCalls.pipe() else {
            let reason = POSIX.errorText()
            close(outPipe.read)
            close(outPipe.write)
            return Result(termination: .couldNotStart(reason), stdout: "", stderr: "")
        }

        let directory = workingDirectory ?? environment["HOME"] ?? "/"
        // The ruleset's descriptor must stay open until the child has entered it.
        let spawned = withExtendedLifetime(ruleset) {
            ChildProcess.spawn(
                program: program, argv: argv, environment: environment, directory: directory, input: standardInput,
                output: outPipe.write, error: errPipe.write, ruleset: ruleset?.fd ?? -1)
        }
        close(outPipe.write)
        close(errPipe.write)
        let pid: pid_t
        switch spawned {
        case .success(let started):
            pid = started
        case .failure(let failure):
            close(outPipe.read)
            close(errPipe.read)
            return Result(
                termination: .couldNotStart(
                    spawnFailure(failure, program: program, directory: directory, confined: ruleset != nil)),
                stdout: "", stderr: "")
        }
        return supervise(
            pid: pid, stdout: outPipe.read, stderr: errPipe.read, timeout: timeout, cancellation: cancellation)
    }

    /// Why a program could not be started, for a message.
    private static func spawnFailure(
        _ failure: ChildProcess.SpawnFailure, program: String, directory: String, confined: Bool
    ) -> String {
        let reason = failure.code.description
        switch failure.step {
        case .directory:
            return "cannot enter its folder '\(directory)': \(reason)"
        case .confining:
            return "it could not be confined: landlock_restrict_self: \(reason)"
        case .executing:
            let folders = ImporterSandbox.systemFolders.joined(separator: ", ")
            let hint = confined && failure.code.rawValue == EACCES ? " (confined, it may run only its own program and \(folders))" : ""
            return "cannot run '\(program)': \(reason)\(hint)"
        case .preparing, .processGroup:
            return "cannot start '\(program)': \(reason)"
        }
    }

    /// Collects output until the process exits, stopping it at the timeout.
    private static func supervise(
        pid: pid_t, stdout: Int32, stderr: Int32, timeout: Duration, cancellation: ImportCancellation?
    ) -> Result {
        _ = fcntl(stdout, F_SETFL, fcntl(stdout, F_GETFL) | O_NONBLOCK)
        _ = fcntl(stderr, F_SETFL, fcntl(stderr, F_GETFL) | O_NONBLOCK)
        defer {
            close(stdout)
            close(stderr)
        }
        var captured = [TailBuffer(limit: captureLimit), TailBuffer(limit: captureLimit)]
        let deadline = ContinuousClock.now + timeout
        var killAt: ContinuousClock.Instant?
        var timedOut = false
        var cancelled = false
        var open = [true, true]
        var waitStatus: Int32 = 0
        var exited = false
        var lost = false
        while !exited {
            var fds = [stdout, stderr].enumerated().map { index, fd in
                pollfd(fd: open[index] ? fd : -1, events: Int16(POLLIN), revents: 0)
            }
            _ = poll(&fds, 2, 50)
            for index in 0..<2 where open[index] && fds[index].revents != 0 {
                if !captured[index].drain(index == 0 ? stdout : stderr) { open[index] = false }
            }
            let reaped = waitpid(pid, &waitStatus, WNOHANG)
            if reaped == pid || (reaped < 0 && errno == ECHILD) {
                lost = reaped != pid
                exited = true
                break
            }
            let now = ContinuousClock.now
            if !timedOut && !cancelled && (now >= deadline || cancellation?.isCancelled == true) {
                if now >= deadline { timedOut = true } else { cancelled = true }
                kill(-pid, SIGTERM)
                killAt = now + killGrace
            } else if let due = killAt, now >= due {
                kill(-pid, SIGKILL)
                killAt = nil
            }
        }
        // Whatever is left in the pipes (a background child may still hold them: do not wait).
        for index in 0..<2 where open[index] { _ = captured[index].drain(index == 0 ? stdout : stderr) }
        let termination: Termination
        if timedOut {
            termination = .timedOut
        } else if cancelled {
            termination = .cancelled
        } else if lost {
            termination = .couldNotStart("its exit status was lost")
        } else if waitStatus & 0x7f == 0 {
            termination = .exited((waitStatus >> 8) & 0xff)
        } else {
            termination = .signaled(waitStatus & 0x7f)
        }
        return Result(termination: termination, stdout: captured[0].text, stderr: captured[1].text)
    }
}

/// The last `limit` bytes read from a descriptor.
private struct TailBuffer {
    let limit: Int
    var bytes: [UInt8] = []

    init(limit: Int) { self.limit = limit }

    /// Reads what is available; returns false at end of file.
    mutating func drain(_ fd: Int32) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes.append(contentsOf: chunk[0..<count])
                if bytes.count > limit { bytes.removeFirst(bytes.count - limit) }
                continue
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK
        }
    }

    var text: String { String(decoding: bytes, as: UTF8.self) }
}
