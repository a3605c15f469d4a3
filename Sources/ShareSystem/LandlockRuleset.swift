internal import CShareLinux

#if canImport(Glibc)
    import Glibc
#endif

/// A Landlock ruleset: what a process confined by it may still do with files, the network, signals
/// and abstract Unix sockets (https://docs.kernel.org/userspace-api/landlock.html).
///
/// The ruleset handles every right the ABI knows, so whatever no rule allows is denied: all file
/// access outside the folders and files added with ``allow(_:_:followingLinks:)``, every TCP bind
/// and connect (ABI 4 and later; no rule ever allows one), and signals and abstract Unix sockets
/// that reach outside the confined processes (ABI 6 and later). A child enters it with
/// ``ChildProcess/spawn(program:argv:environment:directory:input:output:error:ruleset:)`` (ShareKit's `ImporterProcess`); the ruleset itself is only a description until then.
///
/// Owns the ruleset's descriptor (close-on-exec), closed on release.
package final class LandlockRuleset {
    /// Landlock's filesystem rights (`LANDLOCK_ACCESS_FS_*`).
    package struct Access: OptionSet, Sendable, Hashable {
        package let rawValue: UInt64

        package init(rawValue: UInt64) { self.rawValue = rawValue }

        package static let execute = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_EXECUTE)
        package static let writeFile = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_WRITE_FILE)
        package static let readFile = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_READ_FILE)
        package static let readDirectory = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_READ_DIR)
        package static let removeDirectory = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_REMOVE_DIR)
        package static let removeFile = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_REMOVE_FILE)
        package static let makeCharacterDevice = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_MAKE_CHAR)
        package static let makeDirectory = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_MAKE_DIR)
        package static let makeRegularFile = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_MAKE_REG)
        package static let makeSocket = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_MAKE_SOCK)
        package static let makeFIFO = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_MAKE_FIFO)
        package static let makeBlockDevice = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_MAKE_BLOCK)
        package static let makeSymlink = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_MAKE_SYM)
        /// Renaming or linking a file into another folder (ABI 2).
        package static let refer = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_REFER)
        /// Truncating a file (ABI 3).
        package static let truncate = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_TRUNCATE)
        /// ioctl on a device file (ABI 5).
        package static let ioctlDevice = Access(rawValue: CSHARE_LANDLOCK_ACCESS_FS_IOCTL_DEV)

        /// The rights that mean something for a file rather than a folder.
        package static let fileRights: Access = [.execute, .writeFile, .readFile, .truncate, .ioctlDevice]

        /// Every filesystem right Landlock ABI `abi` knows.
        package static func known(abi: Int) -> Access {
            guard abi >= 1 else { return [] }
            var rights = Access(rawValue: (1 << 13) - 1)
            if abi >= 2 { rights.insert(.refer) }
            if abi >= 3 { rights.insert(.truncate) }
            if abi >= 5 { rights.insert(.ioctlDevice) }
            return rights
        }
    }

    /// The Landlock ABI this kernel offers (1 or more), asked once per process; `-ENOSYS` when the
    /// kernel was built without Landlock, `-EOPNOTSUPP` when it was disabled at boot.
    package static let kernelABI = Int(CShareLinux_landlock_abi())

    /// The ABI the ruleset was made for.
    package let abi: Int
    /// The filesystem rights it handles: every right the ABI knows.
    package let handled: Access
    /// The ruleset's descriptor.
    package let fd: Int32

    /// Creates a ruleset that denies everything ABI `abi` can deny.
    /// - Throws: ``LandlockError`` when the kernel refuses (or `abi` is below 1).
    package init(abi: Int) throws(LandlockError) {
        guard abi >= 1 else { throw LandlockError("this kernel offers no Landlock") }
        handled = Access.known(abi: abi)
        let network = abi >= 4 ? CSHARE_LANDLOCK_ACCESS_NET_BIND_TCP | CSHARE_LANDLOCK_ACCESS_NET_CONNECT_TCP : 0
        let scopes = abi >= 6 ? CSHARE_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | CSHARE_LANDLOCK_SCOPE_SIGNAL : 0
        let fd = CShareLinux_landlock_create_ruleset(handled.rawValue, network, scopes)
        guard fd >= 0 else { throw LandlockError("landlock_create_ruleset: \(Errno.current)") }
        self.abi = abi
        self.fd = fd
    }

    deinit { close(fd) }

    /// Allows `access` on the file at `path`, or beneath the folder at `path` (rights the ABI does
    /// not know are left out; on a file, only ``Access/fileRights``).
    /// - Parameters:
    ///   - followingLinks: whether a symbolic link at `path` means its target (`false`: the link
    ///     itself, so nothing behind it is allowed).
    ///   - ifPresent: `true` to skip a path that does not exist instead of failing.
    /// - Throws: ``LandlockError`` when the path cannot be opened or the kernel refuses the rule.
    package func allow(_ path: String, _ access: Access, followingLinks: Bool = true, ifPresent: Bool = false)
        throws(LandlockError)
    {
        let target = CShareLinux_open_path(path, followingLinks ? 1 : 0)
        guard target >= 0 else {
            if ifPresent && (errno == ENOENT || errno == ENOTDIR) { return }
            throw LandlockError("cannot open '\(path)': \(Errno.current)")
        }
        defer { close(target) }
        var info = stat()
        guard fstat(target, &info) == 0 else { throw LandlockError("cannot examine '\(path)': \(Errno.current)") }
        var allowed = access.intersection(handled)
        if (info.st_mode & S_IFMT) != S_IFDIR { allowed.formIntersection(.fileRights) }
        guard !allowed.isEmpty else { return }
        guard CShareLinux_landlock_allow_beneath(fd, target, allowed.rawValue) == 0 else {
            throw LandlockError("landlock_add_rule for '\(path)': \(Errno.current)")
        }
    }
}
