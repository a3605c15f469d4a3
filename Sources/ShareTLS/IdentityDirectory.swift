import ShareSystem
// ShareTLS: the folder that holds the node's identity files, and crash-safe writes into it.

#if canImport(Glibc)
    import Glibc
#endif

/// The identity folder (`$XDG_CONFIG_HOME/share/` in production) and its files.
///
/// Every write is atomic and durable: a temporary file in the same folder (created with `O_CREAT|O_EXCL`
/// and its final mode), written, `fsync`ed, then moved into place, then the folder `fsync`ed. A new file is
/// put in place with `link(2)`, which fails if the name already exists, so a key is never replaced, and of two
/// processes racing to create a file exactly one wins; the other reads the winner's file.
///
/// Later commands (`share identity csr`, `share identity import-cert`, a team CA trust store) add their files
/// here through the same primitives.
struct IdentityDirectory {
    /// The folder's path, as given.
    let path: String

    /// The private key: PKCS#8 PEM, mode 0600.
    var keyPath: String { path + "/" + IdentityDirectory.keyFileName }

    /// The certificate for the key: PEM, mode 0644.
    var certificatePath: String { path + "/" + IdentityDirectory.certificateFileName }

    /// The key file's name.
    static let keyFileName = "identity.key"

    /// The certificate file's name.
    static let certificateFileName = "identity.crt"

    /// The mode of the key file.
    static let keyMode: mode_t = 0o600

    /// The mode of the certificate file.
    static let certificateMode: mode_t = 0o644

    /// Files larger than this are not identity files (a PEM key or certificate is a few hundred bytes).
    static let maximumFileSize = 1 << 20

    /// Creates the folder and any missing parents, each with mode 0700.
    ///
    /// An existing folder keeps its mode; the key file inside is always 0600 regardless.
    func create() throws(IdentityError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        for component in components {
            prefix += component
            if mkdir(prefix, 0o700) == 0 {
                // mkdir's mode is filtered by the umask: make it exactly 0700 (and never more).
                _ = chmod(prefix, 0o700)
            } else {
                let code = errno
                guard code == EEXIST else { throw .cannotCreateDirectory(path: prefix, errno: code) }
            }
            prefix += "/"
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .cannotCreateDirectory(path: path, errno: errno) }
        if info.st_mode & S_IFMT == S_IFLNK { throw .unsafeFolder(path: path, reason: "is a symbolic link") }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .cannotCreateDirectory(path: path, errno: ENOTDIR) }
        if info.st_uid != getuid() { throw .unsafeFolder(path: path, reason: "belongs to another user") }
        if info.st_mode & 0o022 != 0 {
            throw .unsafeFolder(path: path, reason: "is writable by other users (mode \(String(info.st_mode & 0o777, radix: 8)))")
        }
    }

    /// Whether something exists at `path` (a dangling symbolic link counts).
    func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The contents of `path`, or `nil` if it does not exist.
    ///
    /// - Parameter restrictToOwner: for the key: a file readable or writable by group or others is refused
    ///   (``IdentityError/keyExposed(path:mode:)``): it may have been copied.
    /// - Throws: ``IdentityError/cannotRead(path:detail:)`` if it exists but cannot be read, is not a regular
    ///   file, or is implausibly large.
    func read(_ path: String, restrictToOwner: Bool = false) throws(IdentityError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw .cannotRead(path: path, detail: Errno(code).description)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .cannotRead(path: path, detail: Errno(errno).description) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .cannotRead(path: path, detail: "not a regular file") }
        guard Int(info.st_size) <= IdentityDirectory.maximumFileSize else {
            throw .cannotRead(path: path, detail: "the file is \(info.st_size) bytes, far too large for a PEM file")
        }
        if restrictToOwner && info.st_mode & 0o077 != 0 {
            throw .keyExposed(path: path, mode: UInt32(info.st_mode))
        }
        var bytes = [UInt8](repeating: 0, count: IdentityDirectory.maximumFileSize + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return retryingOnInterrupt { Glibc.read(fd, base + count, buffer.count - count) }
            }
            if n < 0 { throw .cannotRead(path: path, detail: Errno.current.description) }
            if n == 0 { break }
            count += n
        }
        guard count <= IdentityDirectory.maximumFileSize else {
            throw .cannotRead(path: path, detail: "the file grew past \(IdentityDirectory.maximumFileSize) bytes")
        }
        // Wipe what we do not return (for the key, it may hold secret bytes past a shrink).
        let result = Array(bytes[0..<count])
        wipe(&bytes)
        return result
    }

    /// Writes `bytes` to `destination` atomically and durably.
    ///
    /// - Parameters:
    ///   - mode: the file's exact mode (not filtered by the umask).
    ///   - replacing: `false` to create a new file only: if `destination` already exists, nothing is changed
    ///     and the function returns `false`. `true` to replace an existing file atomically (`rename(2)`).
    /// - Returns: whether `destination` now holds `bytes`.
    func write(
        _ bytes: UnsafeRawBufferPointer, to destination: String, mode: mode_t, replacing: Bool
    ) throws(IdentityError) -> Bool {
        let name = destination.split(separator: "/").last.map(String.init) ?? "file"
        let suffix = SecureRandom.bytes(6).map { String($0, radix: 16) }.joined()
        let temporary = path + "/." + name + ".tmp-\(getpid())-" + suffix
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else {
            throw .cannotWrite(path: destination, operation: "creating a temporary file", errno: errno)
        }
        var temporaryExists = true
        defer { if temporaryExists { unlink(temporary) } }
        do throws(IdentityError) {
            guard fchmod(fd, mode) == 0 else { throw .cannotWrite(path: destination, operation: "chmod", errno: errno) }
            if let code = POSIX.writeAll(fd, UnsafeRawBufferPointer(bytes)) {
                throw .cannotWrite(path: destination, operation: "write", errno: code)
            }
            guard fsync(fd) == 0 else { throw .cannotWrite(path: destination, operation: "fsync", errno: errno) }
        } catch {
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw .cannotWrite(path: destination, operation: "close", errno: errno) }

        if replacing {
            guard rename(temporary, destination) == 0 else {
                throw .cannotWrite(path: destination, operation: "rename", errno: errno)
            }
            temporaryExists = false
        } else {
            if link(temporary, destination) != 0 {
                let code = errno
                if code == EEXIST { return false }
                throw .cannotWrite(path: destination, operation: "link", errno: code)
            }
            unlink(temporary)
            temporaryExists = false
        }
        try syncFolder()
        return true
    }

    /// Makes the folder's entries durable (`fsync` on the folder).
    func syncFolder() throws(IdentityError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotWrite(path: path, operation: "opening the folder", errno: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 {
            let code = errno
            // Some file systems cannot fsync a folder (EINVAL); there is nothing more to do on those.
            if code != EINVAL && code != EROFS {
                throw .cannotWrite(path: path, operation: "fsync of the folder", errno: code)
            }
        }
    }
}

/// Overwrites `bytes` with zeros (best effort: Swift may have copied the buffer before).
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress { memset(base, 0, buffer.count) }
    }
}
