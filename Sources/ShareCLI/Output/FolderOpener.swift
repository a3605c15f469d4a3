import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Opens a folder in the user's file manager with `xdg-open`, as the "Open" button of a
/// notification does: started directly (no shell), and reaped on a thread of its own.
enum FolderOpener {
    /// Starts `xdg-open path` (found through `PATH`); returns false when it cannot be started.
    @discardableResult
    static func open(_ path: String) -> Bool {
        let words: [String] = ["xdg-open", path]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var pid: pid_t = 0
        guard posix_spawnp(&pid, "xdg-open", &actions, nil, argv, environ) == 0 else { return false }
        let child = pid
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        }
        return true
    }
}
