internal import CShareArchive
import Foundation
import ShareSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a tar.gz or zip archive of a folder: how the examples export their documents.
///
/// Owns one libarchive write handle, freed in `deinit`. Entries are added in name order, so the
/// same folder always gives the same list of entries.
///
/// > Warning: Not thread-safe.
public final class ArchiveWriter {
    private let handle: OpaquePointer
    private let path: String
    private var isClosed = false

    /// Creates the archive file at `path` (replacing any file there).
    /// - Parameters:
    ///   - path: the archive to write.
    ///   - format: tar.gz or zip.
    ///   - password: for a zip, encrypts every entry with AES-256 (WinZip AE-2, which libarchive,
    ///     7-Zip and `bsdtar` read) under this password (UTF-8, no NUL byte).
    /// - Throws: ``ArchiveError/cannotOpen(path:reason:)``.
    public init(path: String, format: ArchiveFormat, password: [UInt8]? = nil) throws(ArchiveError) {
        guard let handle = libarchive.archive_write_new() else {
            throw .cannotOpen(path: path, reason: "out of memory")
        }
        self.handle = handle
        self.path = path
        switch format {
        case .tarGzip:
            _ = libarchive.archive_write_add_filter_gzip(handle)
            _ = libarchive.archive_write_set_format_pax_restricted(handle)
        case .zip:
            _ = libarchive.archive_write_set_format_zip(handle)
        }
        if let password {
            guard format == .zip else { throw .cannotOpen(path: path, reason: "only zip archives take a password") }
            guard !password.isEmpty, !password.contains(0) else {
                throw .cannotOpen(path: path, reason: "a password must be at least one character, without NUL")
            }
            guard libarchive.archive_write_set_options(handle, "zip:encryption=aes256") == ARCHIVE_OK else {
                throw .cannotOpen(path: path, reason: errorText)
            }
            let set = (password + [0]).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    libarchive.archive_write_set_passphrase(handle, $0.baseAddress)
                }
            }
            guard set == ARCHIVE_OK else { throw .cannotOpen(path: path, reason: errorText) }
        }
        guard libarchive.archive_write_open_filename(handle, path) == ARCHIVE_OK else {
            throw .cannotOpen(path: path, reason: errorText)
        }
    }

    deinit {
        if !isClosed { _ = libarchive.archive_write_close(handle) }
        _ = libarchive.archive_write_free(handle)
    }

    private var errorText: String {
        libarchive.archive_error_string(handle).map { String(cString: $0) } ?? "unknown error"
    }

    /// Adds a folder entry.
    public func addFolder(_ name: String, mode: UInt32 = 0o755, modificationTime: Int64 = 0) throws(ArchiveError) {
        try writeHeader(name, type: CShareArchive_IFDIR(), mode: mode, size: 0, time: modificationTime, link: nil)
    }

    /// Adds a file entry with its content.
    public func addFile(
        _ name: String, contents: [UInt8], mode: UInt32 = 0o644, modificationTime: Int64 = 0
    )
        throws(ArchiveError)
    {
        try writeHeader(
            name, type: CShareArchive_IFREG(), mode: mode, size: Int64(contents.count), time: modificationTime,
            link: nil)
        var offset = 0
        while offset < contents.count {
            let written = contents[offset...].withUnsafeBytes {
                libarchive.archive_write_data(handle, $0.baseAddress, $0.count)
            }
            guard written > 0 else { throw .storageFailed(operation: "writing", path: path, reason: errorText) }
            offset += written
        }
    }

    /// Adds a symbolic link entry.
    public func addLink(_ name: String, target: String) throws(ArchiveError) {
        try writeHeader(name, type: CShareArchive_IFLNK(), mode: 0o777, size: 0, time: 0, link: target)
    }

    /// Adds a hard link entry (only tests need to write one: extraction refuses them).
    package func addHardLink(_ name: String, target: String) throws(ArchiveError) {
        try writeHeader(name, type: CShareArchive_IFREG(), mode: 0o644, size: 0, time: 0, link: nil, hardLink: target)
    }

    /// Adds a FIFO entry (only tests need to write one: extraction refuses them).
    package func addFIFO(_ name: String) throws(ArchiveError) {
        try writeHeader(name, type: UInt32(Glibc.S_IFIFO), mode: 0o644, size: 0, time: 0, link: nil)
    }

    /// Adds everything under `folder`, named `prefix/relative/path` (or `relative/path` when `prefix` is empty).
    public func addContents(of folder: String, prefix: String = "") throws(ArchiveError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        } catch {
            throw .storageFailed(operation: "listing", path: folder, reason: "\(error)")
        }
        for name in names {
            let path = folder + "/" + name
            let entry = prefix.isEmpty ? name : prefix + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else {
                throw .storageFailed(operation: "reading", path: path, reason: Errno.current.description)
            }
            let mode = UInt32(info.st_mode) & 0o777
            let time = Int64(info.st_mtim.tv_sec)
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                try addFolder(entry, mode: mode, modificationTime: time)
                try addContents(of: path, prefix: entry)
            case S_IFLNK:
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? ""
                try addLink(entry, target: target)
            case S_IFREG:
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw .storageFailed(operation: "reading", path: path, reason: "unreadable")
                }
                try addFile(entry, contents: [UInt8](data), mode: mode, modificationTime: time)
            default:
                continue
            }
        }
    }

    /// Finishes the archive; it is complete only after this succeeds.
    public func close() throws(ArchiveError) {
        guard !isClosed else { return }
        isClosed = true
        guard libarchive.archive_write_close(handle) == ARCHIVE_OK else {
            throw .storageFailed(operation: "finishing", path: path, reason: errorText)
        }
    }

    private func writeHeader(
        _ name: String, type: UInt32, mode: UInt32, size: Int64, time: Int64, link: String?, hardLink: String? = nil
    ) throws(ArchiveError) {
        guard let entry = libarchive.archive_entry_new() else {
            throw .storageFailed(operation: "adding", path: name, reason: "out of memory")
        }
        defer { libarchive.archive_entry_free(entry) }
        libarchive.archive_entry_set_pathname_utf8(entry, type == CShareArchive_IFDIR() ? name + "/" : name)
        libarchive.archive_entry_set_filetype(entry, type)
        libarchive.archive_entry_set_perm(entry, mode_t(mode))
        libarchive.archive_entry_set_size(entry, size)
        libarchive.archive_entry_set_mtime(entry, time_t(time), 0)
        if let link { libarchive.archive_entry_set_symlink_utf8(entry, link) }
        if let hardLink { libarchive.archive_entry_set_hardlink_utf8(entry, hardLink) }
        guard libarchive.archive_write_header(handle, entry) == ARCHIVE_OK else {
            throw .storageFailed(operation: "adding", path: name, reason: errorText)
        }
    }
}

@available(*, unavailable)
extension ArchiveWriter: Sendable {}
