internal import CShareLinux
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts another program the one way the receiver does (`CShareLinux_spawn`): fork and exec with no
/// shell, in a process group of its own, with default signal dispositions and an empty signal mask
/// (the receiver ignores `SIGPIPE`, `SIGINT` and `SIGTERM` itself), only stdin, stdout and stderr
/// open, and the descriptor limit the receiver was started with (``DescriptorLimit``).
package enum ChildProcess {
    /// The step of starting a program that failed.
    package enum Step: Sendable {
        /// Making the pipe that reports a failed step, forking, or moving the three descriptors.
        case preparing
        /// Starting a process group of its own.
        case processGroup
        /// Changing to its folder.
        case directory
        /// Entering the Landlock ruleset (no_new_privs, then landlock_restrict_self).
        case confining
        /// Executing the program.
        case executing
    }

    /// Why a program could not be started: the step that failed and its errno.
    package struct SpawnFailure: Error {
        package let step: Step
        package let code: Errno

        init(step: Int32, code: Int32) {
            switch UInt32(step) {
            case CShareSpawnStepProcessGroup.rawValue: self.step = .processGroup
            case CShareSpawnStepDirectory.rawValue: self.step = .directory
            case CShareSpawnStepNoNewPrivileges.rawValue, CShareSpawnStepRestrict.rawValue: self.step = .confining
            case CShareSpawnStepExec.rawValue: self.step = .executing
            default: self.step = .preparing
            }
            self.code = Errno(code)
        }
    }

    /// The absolute path of `name`: itself when it contains a slash, else the first executable match in `path`.
    package static func locate(_ name: String, path: String?) -> String? {
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
    package static func spawn(
        program: String, argv: [String], environment: [String: String], directory: String?,
        input: Int32, output: Int32, error: Int32, ruleset: Int32 = -1
    ) -> Result<Int32, SpawnFailure> {
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
    package static func reapInBackground(_ pid: Int32) {
        Thread.detachNewThread {
            var status: Int32 = 0
            _ = retryingOnInterrupt { waitpid(pid, &status, 0) }
        }
    }
}
