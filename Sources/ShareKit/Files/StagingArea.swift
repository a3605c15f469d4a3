internal import CShareLinux
import ShareDocuments
import ShareTLS

#if canImport(Glibc)
import Glibc
#endif

/// Where one incoming transfer is written before it is committed (docs/PROTOCOL.md §6).
///
/// The area is `.share-staging/<random>/` inside the receive folder, so it is on the same
/// filesystem and items can be renamed into place atomically. Everything is created relative to
/// the area's descriptor with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`, so no name can
/// reach outside it even if the manifest checks were wrong. The area holds an `flock` while it is
/// in use; a receiver that starts later deletes areas nobody holds (left by a killed receiver).
///
/// > Warning: Not thread-safe; one transfer's writer thread uses it.
final class StagingArea {
    /// The folder's name under the receive folder.
    static let folderName = ".share-staging"

    /// The receive folder.
    let destination: String
    private let destinationFD: Int32
    private let rootFD: Int32
    private let areaFD: Int32
    private let areaName: String
    private var parent: (path: String, fd: Int32)?
    private var isFinished = false

    /// Creates the area in `destination`, creating the receive folder when missing.
    init(destination: String) throws(ReceiveError) {
        self.destination = destination
        try Self.createDirectories(destination)
        let destinationFD = open(destination, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard destinationFD >= 0 else {
            throw .destinationUnusable(path: destination, reason: POSIX.errorText())
        }
        if mkdirat(destinationFD, Self.folderName, 0o700) != 0 && errno != EEXIST {
            let reason = POSIX.errorText()
            close(destinationFD)
            throw .destinationUnusable(path: destination, reason: reason)
        }
        let rootFD = openat(destinationFD, Self.folderName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard rootFD >= 0 else {
            let reason = POSIX.errorText()
            close(destinationFD)
            throw .destinationUnusable(path: destination, reason: reason)
        }
        let name = SecureRandom.bytes(8).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        guard mkdirat(rootFD, name, 0o700) == 0 else {
            let reason = POSIX.errorText()
            close(rootFD)
            close(destinationFD)
            throw .destinationUnusable(path: destination, reason: reason)
        }
        let areaFD = openat(rootFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard areaFD >= 0, flock(areaFD, LOCK_EX | LOCK_NB) == 0 else {
            let reason = POSIX.errorText()
            close(rootFD)
            close(destinationFD)
            throw .destinationUnusable(path: destination, reason: reason)
        }
        self.destinationFD = destinationFD
        self.rootFD = rootFD
        self.areaFD = areaFD
        self.areaName = name
    }

    deinit {
        if !isFinished { discard() }
        if let parent { close(parent.fd) }
        close(areaFD)
        close(rootFD)
        close(destinationFD)
    }

    /// Bytes free for an unprivileged user on the receive folder's filesystem.
    var availableBytes: UInt64 {
        var info = statvfs()
        guard fstatvfs(destinationFD, &info) == 0 else { return .max }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    // MARK: Writing

    /// Creates the folders and links of `manifest` (files come later, as they arrive).
    func prepare(_ manifest: Manifest) throws(ReceiveError) {
        for entry in manifest.entries {
            switch entry.kind {
            case .directory:
                let (parentFD, name) = try parentDirectory(of: entry.path)
                if mkdirat(parentFD, name, 0o700) != 0 {
                    throw .storageFailed(operation: "creating the folder", path: entry.path, reason: POSIX.errorText())
                }
            case .symlink:
                let (parentFD, name) = try parentDirectory(of: entry.path)
                if symlinkat(entry.linkTarget, parentFD, name) != 0 {
                    throw .storageFailed(operation: "creating the link", path: entry.path, reason: POSIX.errorText())
                }
            case .file:
                break
            }
        }
    }

    /// Creates the file at `path` (it must not exist) and returns its descriptor.
    func createFile(_ path: String) throws(ReceiveError) -> Int32 {
        let fd = CShareLinux_openat_beneath(areaFD, path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .storageFailed(operation: "creating", path: path, reason: POSIX.errorText())
        }
        return fd
    }

    /// Gives a finished file its mode and modification time and closes it.
    func finishFile(_ fd: Int32, entry: ManifestEntry) throws(ReceiveError) {
        defer { close(fd) }
        var times = POSIX.times(seconds: entry.modificationSeconds, nanoseconds: entry.modificationNanoseconds)
        if fchmod(fd, mode_t(entry.mode)) != 0 || futimens(fd, &times) != 0 {
            throw .storageFailed(operation: "setting the mode and time of", path: entry.path, reason: POSIX.errorText())
        }
    }

    // MARK: Committing

    /// Makes everything durable and renames each item into the receive folder without replacing
    /// anything. Returns the final name of each item, in manifest order.
    func commit(_ manifest: Manifest) throws(ReceiveError) -> [String] {
        // Folder and link times (and folder modes) last, deepest first: reverse pre-order.
        for entry in manifest.entries.reversed() where entry.kind != .file && !entry.isTopLevel {
            let (parentFD, name) = try parentDirectory(of: entry.path)
            var times = POSIX.times(seconds: entry.modificationSeconds, nanoseconds: entry.modificationNanoseconds)
            if entry.kind == .directory && fchmodat(parentFD, name, mode_t(entry.mode), 0) != 0 {
                throw .storageFailed(operation: "setting the mode of", path: entry.path, reason: POSIX.errorText())
            }
            _ = utimensat(parentFD, name, &times, AT_SYMLINK_NOFOLLOW)
        }
        if let parent {
            close(parent.fd)
            self.parent = nil
        }
        if CShareLinux_syncfs(areaFD) != 0 {
            throw .storageFailed(operation: "syncing", path: destination, reason: POSIX.errorText())
        }
        var names: [String] = []
        for item in manifest.items {
            let finalName = try renameIntoPlace(item.name)
            names.append(finalName)
            let entry = manifest.entries[item.entryRange.lowerBound]
            if entry.kind == .directory {
                var times = POSIX.times(seconds: entry.modificationSeconds, nanoseconds: entry.modificationNanoseconds)
                _ = fchmodat(destinationFD, finalName, mode_t(entry.mode), 0)
                _ = utimensat(destinationFD, finalName, &times, AT_SYMLINK_NOFOLLOW)
            }
        }
        if fsync(destinationFD) != 0 {
            throw .storageFailed(operation: "syncing", path: destination, reason: POSIX.errorText())
        }
        finish()
        return names
    }

    private func renameIntoPlace(_ name: String) throws(ReceiveError) -> String {
        var candidate = name
        var number = 1
        while true {
            if CShareLinux_rename_noreplace(areaFD, name, destinationFD, candidate) == 0 { return candidate }
            guard errno == EEXIST else {
                throw .storageFailed(operation: "moving into place", path: candidate, reason: POSIX.errorText())
            }
            number += 1
            if number > 9999 { throw .noFreeName(name: name) }
            candidate = AlternativeName.candidate(for: name, number: number)
        }
    }

    /// Deletes everything written so far. Safe to call more than once.
    func discard() {
        guard !isFinished else { return }
        if let parent {
            close(parent.fd)
            self.parent = nil
        }
        for name in POSIX.directoryNames(consuming: dup(areaFD)) ?? [] {
            POSIX.removeTree(parent: areaFD, name: name)
        }
        finish()
    }

    private func finish() {
        isFinished = true
        _ = unlinkat(rootFD, areaName, AT_REMOVEDIR)
        // Leaves `.share-staging` only while another transfer uses it.
        _ = unlinkat(destinationFD, Self.folderName, AT_REMOVEDIR)
    }

    private func parentDirectory(of path: String) throws(ReceiveError) -> (Int32, String) {
        guard let slash = path.lastIndex(of: "/") else { return (areaFD, path) }
        let parentPath = String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        if let parent, parent.path == parentPath { return (parent.fd, name) }
        let fd = CShareLinux_openat_beneath(areaFD, parentPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0)
        guard fd >= 0 else {
            throw .storageFailed(operation: "opening the folder", path: parentPath, reason: POSIX.errorText())
        }
        if let parent { close(parent.fd) }
        parent = (parentPath, fd)
        return (fd, name)
    }

    // MARK: Housekeeping

    /// Deletes staging areas in `destination` that no running transfer holds.
    static func removeAbandoned(in destination: String) {
        let destinationFD = open(destination, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard destinationFD >= 0 else { return }
        defer { close(destinationFD) }
        let rootFD = openat(destinationFD, folderName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard rootFD >= 0 else { return }
        defer { close(rootFD) }
        for name in POSIX.directoryNames(consuming: dup(rootFD)) ?? [] {
            let fd = openat(rootFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                POSIX.removeTree(parent: rootFD, name: name)
            }
            close(fd)
        }
        _ = unlinkat(destinationFD, folderName, AT_REMOVEDIR)
    }

    /// Creates `path` and its missing parents (mode 0755).
    static func createDirectories(_ path: String) throws(ReceiveError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw .destinationUnusable(path: path, reason: "it is not a folder")
            }
            return
        }
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw .destinationUnusable(path: path, reason: POSIX.errorText())
            }
        }
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
