import Foundation
import ShareSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Opens a folder in the user's file manager with `xdg-open`, as the "Open" button of a
/// notification does: started directly (no shell) the way importers are (``ChildProcess``: default
/// signal dispositions, a process group of its own, the descriptor limit the receiver was started
/// with), with `/dev/null` as stdin, and reaped on a thread of its own.
public enum FolderOpener {
    /// Starts `xdg-open path` (found through `PATH`); returns false when it cannot be started.
    @discardableResult
    public static func open(_ path: String) -> Bool {
        let environment = ProcessInfo.processInfo.environment
        guard let program = ChildProcess.locate("xdg-open", path: environment["PATH"]) else { return false }
        let input = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return false }
        defer { close(input) }
        let spawned = ChildProcess.spawn(
            program: program, argv: ["xdg-open", path], environment: environment, directory: nil, input: input,
            output: STDOUT_FILENO, error: STDERR_FILENO)
        guard case .success(let pid) = spawned else { return false }
        ChildProcess.reapInBackground(pid)
        return true
    }
}
