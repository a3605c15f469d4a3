internal import CShareArchive
import ShareSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One libarchive read handle: a tar (optionally gzip-compressed) or zip archive, read entry by entry.
///
/// Owns its `struct archive *` and frees it in `deinit`. Only the tar and zip formats and the
/// gzip filter are enabled, so nothing else (and no external decompression program) is ever used.
///
/// > Warning: Not thread-safe; one extraction uses it.
final class ArchiveReader {
    /// One entry's header, copied out of libarchive.
    struct Header {
        /// The path as stored, UTF-8 (nil when it cannot be converted).
        var path: String?
        /// File type bits (`S_IFREG`, `S_IFDIR`, `S_IFLNK`, anything else).
        var fileType: UInt32
        /// Permission bits.
        var permissions: UInt32
        /// Modification time, seconds since 1970.
        var modificationTime: Int64
        /// The declared size, if the format stores one.
        var size: Int64?
        /// The link target of a symbolic link.
        var symlinkTarget: String?
        /// Whether the entry is a hard link.
        var isHardLink: Bool
        /// Whether the entry's data is encrypted (a password-protected zip entry).
        var isEncrypted: Bool
    }

    private let handle: OpaquePointer
    private let hasPassword: Bool
    private var currentIsEncrypted = false

    /// Opens `path` for reading.
    /// - Parameters:
    ///   - path: the archive.
    ///   - password: the password of an encrypted zip (UTF-8, no NUL byte), if one was given.
    /// - Throws: ``ArchiveError/cannotOpen(path:reason:)`` when the file cannot be read,
    ///   ``ArchiveError/unreadable(reason:)`` when it is not a tar, tar.gz or zip archive.
    init(path: String, password: [UInt8]? = nil) throws(ArchiveError) {
        guard access(path, R_OK) == 0 else {
            throw .cannotOpen(path: path, reason: Errno.current.description)
        }
        guard let handle = libarchive.archive_read_new() else {
            throw .cannotOpen(path: path, reason: "out of memory")
        }
        self.handle = handle
        self.hasPassword = password != nil
        if let password {
            guard !password.contains(0) else { throw .wrongPassword }
            let added = (password + [0]).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    libarchive.archive_read_add_passphrase(handle, $0.baseAddress)
                }
            }
            guard added == ARCHIVE_OK else { throw .unreadable(reason: errorText) }
        }
        _ = libarchive.archive_read_support_filter_gzip(handle)
        _ = libarchive.archive_read_support_format_tar(handle)
        _ = libarchive.archive_read_support_format_zip(handle)
        guard libarchive.archive_read_open_filename(handle, path, 64 * 1024) == ARCHIVE_OK else {
            throw .unreadable(reason: errorText)
        }
    }

    deinit {
        _ = libarchive.archive_read_free(handle)
    }

    /// libarchive's last error message.
    var errorText: String {
        libarchive.archive_error_string(handle).map { String(cString: $0) } ?? "unknown error"
    }

    /// The next entry's header, or `nil` at the end.
    /// - Throws: ``ArchiveError/unreadable(reason:)`` for a damaged archive.
    func next() throws(ArchiveError) -> Header? {
        var entry: OpaquePointer?
        let status = libarchive.archive_read_next_header(handle, &entry)
        if status == ARCHIVE_EOF { return nil }
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
            if libarchive.archive_read_has_encrypted_entries(handle) > 0 {
                throw hasPassword ? .wrongPassword : .passwordRequired
            }
            throw .unreadable(reason: errorText)
        }
        let type = UInt32(libarchive.archive_entry_filetype(entry)) & CShareArchive_IFMT()
        currentIsEncrypted = libarchive.archive_entry_is_data_encrypted(entry) != 0
        if currentIsEncrypted && !hasPassword { throw .passwordRequired }
        return Header(
            path: libarchive.archive_entry_pathname_utf8(entry).map { String(cString: $0) },
            fileType: type,
            permissions: UInt32(libarchive.archive_entry_perm(entry)) & 0o7777,
            modificationTime: Int64(libarchive.archive_entry_mtime(entry)),
            size: libarchive.archive_entry_size_is_set(entry) != 0 ? Int64(libarchive.archive_entry_size(entry)) : nil,
            symlinkTarget: type == CShareArchive_IFLNK()
                ? libarchive.archive_entry_symlink_utf8(entry).map { String(cString: $0) } : nil,
            isHardLink: libarchive.archive_entry_hardlink(entry) != nil,
            isEncrypted: currentIsEncrypted)
    }

    /// Reads the current entry's next bytes into `buffer`; returns the count (0 at the entry's end).
    /// - Throws: ``ArchiveError/unreadable(reason:)``.
    /// - Throws: ``ArchiveError/unreadable(reason:)``; ``ArchiveError/wrongPassword`` when the
    ///   entry is encrypted and the password does not decrypt it.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        let count = libarchive.archive_read_data(handle, buffer.baseAddress, buffer.count)
        if count < 0 {
            if currentIsEncrypted { throw hasPassword ? .wrongPassword : .passwordRequired }
            throw .unreadable(reason: errorText)
        }
        return count
    }

    /// Whether an entry type is a regular file, a directory or a link.
    static func isRegular(_ type: UInt32) -> Bool { type == CShareArchive_IFREG() }
    static func isDirectory(_ type: UInt32) -> Bool { type == CShareArchive_IFDIR() }
    static func isLink(_ type: UInt32) -> Bool { type == CShareArchive_IFLNK() }
}

@available(*, unavailable)
extension ArchiveReader: Sendable {}
