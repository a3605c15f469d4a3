internal import CShareLinux
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts another program the one way the receiver does (`CShareLinux_spawn`): fork and exec with no
/// shell, in a process group of its own, with default signal dispositions and an empty signal mask
/// (the receiver ignores `SIGPIPE`, `SIGINT` and `SIGTERM` itself), only stdin, stdout and stderr
/// open, and the descriptor limit the receiver was started with (``DescriptorLimit``).
enum ChildProcess {
    /// Why a program could not be started: the step of `CShareLinux_spawn` that failed (a
    /// `CShareSpawnStep` value) and its errno.
    struct SpawnFailure: Error {
        let step: Int32
        let code: Int32
    }

    /// The absolute path of `name`: itself when it contains a slash, else the first executable match in `path`.
    static func locate(_ name: String, path: String?) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        for directory in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where directory.hasPrefix("/") {
            let candidate = directory + "/" + name
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// Starts `program` (an absolute path) with `argv` and `environment`, in `directory` (or where
    /// this process is), with the three descriptors as its stdin, stdout and stderr, entering the
    /// Landlock `ruleset` first unless it is -1; returns its pid once it runs.
    static func spawn(
        program: String, argv: [String], environment: [String: String], directory: String?,
        input: Int32, output: Int32, error: Int32, ruleset: Int32 = -1
    ) -> Result<pid_t, SpawnFailure> {
        let arguments = argv.map { strdup($0) } + [nil]
        let variables = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in arguments { free(pointer) }
            for pointer in variables { free(pointer) }
        }
        var step: Int32 = 0
        var failure: Int32 = 0
        let pid = CShareLinux_spawn(
            program, arguments, variables, directory, input, output, error, ruleset, DescriptorLimit.forChildren, &step,
            &failure)
        return pid > 0 ? .success(pid) : .failure(SpawnFailure(step: step, code: failure))
    }

    /// Reaps `pid` on a thread of its own, for a program nobody waits for.
    static func reapInBackground(_ pid: pid_t) {
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
    }
}
