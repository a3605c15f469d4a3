public import Glibc
import Synchronization

/// A child process started with posix_spawn: stdin from a pipe (or /dev/null), stdout and
/// stderr into one pipe. Foundation's `Process` is avoided on purpose: on Linux it reports
/// termination through the run loop of the thread that launched it, which a Swift
/// concurrency thread never runs, so waits hang.
///
/// Every pipe is close-on-exec, so no other child (nor a daemon it leaves behind) holds a
/// child's pipe open; lan.sh also closes whatever else it inherits.
///
/// Sendable: the pid and output descriptor are immutable; the stdin descriptor and the
/// exit status sit behind a Mutex.
public final class Subprocess: Sendable {
    /// The child's pid.
    public let pid: pid_t
    /// Read end of the child's stdout (and stderr, unless it has its own pipe).
    public let output: Int32
    /// Read end of the child's stderr when `separateStandardError` was asked for, else -1.
    public let errorOutput: Int32
    /// Write end of the child's stdin (-1 once closed or without a stdin pipe), and the exit status once reaped.
    private let state: Mutex<(input: Int32, status: Int32?)>

    /// Starts `executable` with `arguments` (without argv[0]) and `environment`.
    public init(
        executable: String, arguments: [String], environment: [String: String], stdinPipe: Bool,
        separateStandardError: Bool = false
    ) throws {
        // Writing to a child that has exited must be an error, not a SIGPIPE that ends the tests.
        Glibc.signal(SIGPIPE, SIG_IGN)
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        var inPipe: [Int32] = [-1, -1]
        try Self.makePipe(&outPipe)
        if separateStandardError { try Self.makePipe(&errPipe) }
        if stdinPipe { try Self.makePipe(&inPipe) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if stdinPipe {
            posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, separateStandardError ? errPipe[1] : outPipe[1], 2)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // The child starts with no blocked signals and default dispositions: a test runner
        // thread may block SIGTERM, and daemons started through lan.sh would inherit that
        // and ignore `kill`.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        close(outPipe[1])
        if separateStandardError { close(errPipe[1]) }
        if stdinPipe { close(inPipe[0]) }
        guard result == 0 else {
            close(outPipe[0])
            if separateStandardError { close(errPipe[0]) }
            if stdinPipe { close(inPipe[1]) }
            throw HarnessError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
        output = outPipe[0]
        errorOutput = separateStandardError ? errPipe[0] : -1
        state = Mutex((stdinPipe ? inPipe[1] : -1, nil))
    }

    /// pipe(2) with both ends close-on-exec (pipe2 is not visible from Swift's Glibc module).
    private static func makePipe(_ fds: inout [Int32]) throws {
        guard pipe(&fds) == 0 else { throw HarnessError(description: "pipe: errno \(errno)") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }

    deinit {
        if reap(block: false) == nil {
            kill(pid, SIGKILL)
            reap(block: true)
        }
        close(output)
        if errorOutput >= 0 { close(errorOutput) }
        closeInput()
    }

    /// Closes the child's stdin.
    public func closeInput() {
        state.withLock { state in
            if state.input >= 0 {
                close(state.input)
                state.input = -1
            }
        }
    }

    /// Reads the output until EOF (blocking).
    public func readToEnd() -> [UInt8] {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            all += buffer[0..<count]
        }
        return all
    }

    /// The exit status (128 + signal for a killed child), or nil while it runs and `block` is false.
    @discardableResult
    public func reap(block: Bool) -> Int32? {
        state.withLock { state in
            if let status = state.status { return status }
            var raw: Int32 = 0
            while true {
                let result = waitpid(pid, &raw, block ? 0 : WNOHANG)
                if result < 0, errno == EINTR { continue }
                guard result == pid else { return nil }
                break
            }
            let signal = raw & 0x7f
            let status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
            state.status = status
            return status
        }
    }

    /// Writes `text` to the child's stdin.
    public func write(_ text: String) {
        state.withLock { state in
            guard state.input >= 0 else { return }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let count = bytes.withUnsafeBytes { Glibc.write(state.input, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                bytes = bytes.dropFirst(count)
            }
        }
    }

    /// Sends `signal` if the child still runs.
    public func signal(_ number: Int32) {
        if reap(block: false) == nil { kill(pid, number) }
    }

    /// Sends SIGTERM if the child still runs.
    public func terminate() {
        if reap(block: false) == nil { kill(pid, SIGTERM) }
    }
}
