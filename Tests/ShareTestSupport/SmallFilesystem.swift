import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A small filesystem for disk-full tests: a tmpfs of a few megabytes mounted on a fresh test folder
/// (``directory``), which the test can fill up to a chosen free space and free again.
///
/// ```swift
/// let disk = try SmallFilesystem(size: 8 << 20)
/// let receiver = try ReceiverHarness(in: disk.directory)   // identity, inbox, received: all on it
/// try disk.fill(leaving: 1 << 20)                         // 1 MiB left
/// // ... a send fails with "No space left on device" ...
/// try disk.free()                                         // the space is back
/// ```
///
/// Needs root (mount(2)); the mount is visible to the test process and to the processes it starts
/// locally. It is unmounted when the value is released (or with ``unmount()``); one that a killed
/// test run left behind is unmounted by the next one.
public final class SmallFilesystem: Sendable {
    /// The mounted folder (a fresh test folder, removed after the unmount).
    public let directory: TemporaryDirectory
    /// The filesystem's size in bytes.
    public let size: Int

    /// What this machine lacks for a small filesystem (empty: it can mount one).
    public static let missingCapabilities: [String] = getuid() == 0 ? [] : ["not running as root (mount needs root)"]

    /// Whether disk-full tests run: when the machine can, or when required (SHARE_REQUIRE_NETNS=1, and
    /// then they fail).
    public static var shouldRun: Bool { SimulatedLAN.isRequired || missingCapabilities.isEmpty }

    /// Why disk-full tests are skipped here.
    public static var skipReason: String {
        "no small filesystem (" + missingCapabilities.joined(separator: "; ")
            + "); set SHARE_REQUIRE_NETNS=1 to make this a failure"
    }

    private static let filler = ".share-test-filler"

    /// Mounts a tmpfs of `size` bytes on a fresh folder under /tmp/share-tests.
    ///
    /// - Throws: ``HarnessError`` when it cannot be mounted (not root, no tmpfs).
    public init(size: Int, label: String = "smallfs") throws {
        Self.unmountAbandoned()
        directory = TemporaryDirectory("\(label)-\(getpid())")
        self.size = size
        guard mount("share-test", directory.path, "tmpfs", UInt(MS_NOSUID | MS_NODEV), "size=\(size),mode=0755") == 0
        else {
            throw HarnessError(
                description: "cannot mount a tmpfs on \(directory.path): \(String(cString: strerror(errno)))"
                    + (getuid() == 0 ? "" : " (mount needs root)"))
        }
    }

    deinit { unmount() }

    /// The mounted folder's path.
    public var path: String { directory.path }

    /// A path inside the filesystem.
    public func at(_ relative: String) -> String { directory.at(relative) }

    /// The bytes still free.
    public var freeBytes: Int {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Takes up space (in a hidden file at the root) until only `free` bytes are left.
    public func fill(leaving free: Int = 0) throws {
        let wanted = freeBytes - free
        guard wanted > 0 else { return }
        let fd = open(at(Self.filler + "-\(UUID().uuidString)"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw HarnessError(description: "cannot create a filler file: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let result = posix_fallocate(fd, 0, off_t(wanted))
        guard result == 0 else {
            throw HarnessError(description: "cannot fill \(path): \(String(cString: strerror(result)))")
        }
    }

    /// Gives back the space ``fill(leaving:)`` took.
    public func free() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: path) where name.hasPrefix(Self.filler) {
            try FileManager.default.removeItem(atPath: at(name))
        }
    }

    /// Unmounts the filesystem (everything on it is gone). Safe to call more than once.
    public func unmount() {
        umount2(path, Int32(MNT_DETACH))
    }

    /// Unmounts the small filesystems of test runs that are gone (killed before their cleanup).
    private static func unmountAbandoned() {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return }
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 2, fields[0] == "share-test", fields[2] == "tmpfs" else { continue }
            let mountPoint = String(fields[1])
            // TemporaryDirectory("LABEL-PID") makes /tmp/share-tests/LABEL-PID-XXXXXX.
            let parts = (mountPoint as NSString).lastPathComponent.split(separator: "-")
            guard parts.count >= 3, let owner = pid_t(parts[parts.count - 2]), kill(owner, 0) != 0, errno == ESRCH
            else {
                continue
            }
            umount2(mountPoint, Int32(MNT_DETACH))
            rmdir(mountPoint)
        }
    }
}
