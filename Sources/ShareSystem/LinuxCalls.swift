internal import CShareLinux

#if canImport(Glibc)
    import Glibc
#endif

/// The Linux system calls share needs that Swift's Glibc module does not offer (openat2,
/// renameat2, syncfs, sync_file_range, pipe2): each returns what the call returns, -1 with `errno`
/// set on failure, and is made again when a signal interrupted it.
package enum LinuxCalls {
    /// openat2(2): opens `path` relative to the folder open at `directory`, refusing to resolve
    /// outside it, through a symbolic link, a magic link or another mount. Returns the descriptor,
    /// or -1 (EXDEV: `path` escapes the folder; ELOOP: a symbolic link on the way).
    package static func openBeneath(_ directory: Int32, _ path: String, flags: Int32, mode: UInt32 = 0) -> Int32 {
        retryingOnInterrupt { CShareLinux_openat_beneath(directory, path, flags, mode) }
    }

    /// renameat2(2) with RENAME_NOREPLACE: moves `name` into `newDirectory` as `newName`, failing
    /// with EEXIST instead of replacing what is there. Returns 0, or -1.
    package static func renameWithoutReplacing(
        _ directory: Int32, _ name: String, to newDirectory: Int32, _ newName: String
    ) -> Int32 {
        CShareLinux_rename_noreplace(directory, name, newDirectory, newName)
    }

    /// syncfs(2): commits the whole filesystem that holds the file open at `fd`. Returns 0, or -1.
    package static func syncFilesystem(_ fd: Int32) -> Int32 {
        retryingOnInterrupt { CShareLinux_syncfs(fd) }
    }

    /// sync_file_range(2) with SYNC_FILE_RANGE_WRITE: starts writing `length` bytes from `offset`
    /// back to the disk without waiting for them. Returns 0, or -1.
    package static func startWriteback(_ fd: Int32, offset: Int64, length: Int64) -> Int32 {
        retryingOnInterrupt { CShareLinux_start_writeback(fd, offset, length) }
    }

    /// Turns O_DIRECT on or off for the file open at `fd`: its writes then go to the device without
    /// a copy into the page cache (buffer, offset and length aligned to ``directAlignment``).
    /// Returns 0, or -1 (EINVAL: the filesystem cannot write that way).
    package static func setDirectIO(_ fd: Int32, _ on: Bool) -> Int32 {
        retryingOnInterrupt { CShareLinux_set_direct_io(fd, on ? 1 : 0) }
    }

    /// What O_DIRECT writes are aligned to (address, offset and length): a page, which covers the
    /// logical block size of every disk Linux writes to.
    package static let directAlignment = 4096

    /// Names the calling thread as `/proc/self/task/TID/comm` shows it (its first 15 bytes), so
    /// `top -H`, `perf` and the benchmarks tell the threads apart.
    package static func nameThisThread(_ name: String) {
        _ = CShareLinux_name_thread(name)
    }

    /// pipe2(2) with O_CLOEXEC, so no other thread's spawn inherits either end.
    /// - Returns: the read and write ends, or `nil` with `errno` set.
    package static func pipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard CShareLinux_pipe_cloexec(&ends) == 0 else { return nil }
        return (ends[0], ends[1])
    }
}
