import ShareSystem
import ShareDocuments

#if canImport(Glibc)
    import Glibc
#endif

/// Extracts a tar.gz or zip archive received from someone else, safely.
///
/// Every entry is checked before it is written, with the same rules as a received offer
/// (``PathRules``): no absolute paths, no `..` or empty components, no control characters, no
/// names colliding by case or Unicode form; hard links, devices, FIFOs and sockets are refused;
/// a symbolic link must be relative and stay inside the tree (``LinkResolver``), and links are
/// created only after every file, so no write ever goes through one. Files are created with
/// `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` and `O_CREAT | O_EXCL | O_NOFOLLOW` beneath
/// the destination's descriptor. Entry count and expanded size are bounded as data is read
/// (``ArchiveLimits``), whatever the headers claim. Permission bits keep only `0o777` (never
/// setuid, setgid or sticky); folders stay writable by their owner.
///
/// On any error the caller should delete the destination folder: extraction stops at the first
/// problem and leaves what it wrote so far.
public enum ArchiveExtractor {
    /// Extracts the archive at `archivePath` into the existing, empty folder `destination`.
    /// - Parameters:
    ///   - archivePath: a tar (optionally gzip-compressed) or zip archive.
    ///   - destination: an existing empty folder; nothing is written outside it.
    ///   - limits: bounds on entries, expanded size and path lengths.
    ///   - password: the password of an encrypted (AES) zip, UTF-8, if the user gave one.
    /// - Returns: what was written.
    /// - Throws: ``ArchiveError``; ``ArchiveError/passwordRequired`` or ``ArchiveError/wrongPassword``
    ///   for an encrypted zip without the right password.
    public static func extract(
        archiveAt archivePath: String, into destination: String, limits: ArchiveLimits = .standard,
        password: [UInt8]? = nil
    )
        throws(ArchiveError) -> ExtractionSummary
    {
        let rootFD = open(destination, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard rootFD >= 0 else {
            throw .storageFailed(operation: "opening", path: destination, reason: Errno.current.description)
        }
        defer { close(rootFD) }
        let reader = try ArchiveReader(path: archivePath, password: password)
        var extraction = Extraction(rootFD: rootFD, limits: limits)
        while let header = try reader.next() {
            try extraction.add(header, reader: reader)
        }
        return try extraction.finish()
    }

}

/// The state of one extraction.
private struct Extraction {
    let rootFD: Int32
    let limits: ArchiveLimits
    var manifestLimits: ManifestLimits
    var entries = 0
    var bytes: UInt64 = 0
    var files = 0
    var folders: Set<String> = []
    var collisionKeys: [String: String] = [:]
    var links: [(path: String, target: String)] = []
    var folderTimes: [(path: String, mode: UInt32, time: Int64)] = []
    var topLevel: Set<String> = []

    init(rootFD: Int32, limits: ArchiveLimits) {
        self.rootFD = rootFD
        self.limits = limits
        manifestLimits = ManifestLimits(maxPathBytes: limits.maxPathBytes, maxDepth: limits.maxDepth)
    }

    mutating func add(_ header: ArchiveReader.Header, reader: ArchiveReader) throws(ArchiveError) {
        entries += 1
        if entries > limits.maxEntries { throw .tooManyEntries(limit: limits.maxEntries) }
        guard let raw = header.path else { throw .unsafePath(path: "?", problem: "the name is not valid UTF-8") }
        let isDirectory = ArchiveReader.isDirectory(header.fileType)
        guard let path = try normalized(raw, isDirectory: isDirectory) else { return }
        if header.isHardLink { throw .hardLink(path: path) }
        let key = PathRules.collisionKey(path)
        if let other = collisionKeys[key], !(isDirectory && other == path && folders.contains(path)) {
            throw .duplicatePath(path: path)
        }
        collisionKeys[key] = path
        topLevel.insert(String(PathRules.components(of: path)[0]))
        if isDirectory {
            try makeFolders(path)
            folderTimes.append((path, header.permissions, header.modificationTime))
        } else if ArchiveReader.isRegular(header.fileType) {
            if let size = header.size, size > 0, UInt64(size) > limits.maxTotalBytes &- bytes {
                throw .tooLarge(limit: limits.maxTotalBytes)
            }
            try writeFile(path, header: header, reader: reader)
        } else if ArchiveReader.isLink(header.fileType) {
            guard let target = header.symlinkTarget, !target.isEmpty, !target.hasPrefix("/"),
                target.utf8.count <= manifestLimits.maxLinkTargetBytes,
                !target.unicodeScalars.contains(where: PathRules.isForbidden)
            else {
                throw .linkLeavesTree(path: path, target: header.symlinkTarget ?? "")
            }
            links.append((path, target))
        } else {
            throw .specialFile(path: path)
        }
    }

    /// The entry's path without `./` prefixes or a trailing `/`; `nil` for the root entry `./`.
    private func normalized(_ raw: String, isDirectory: Bool) throws(ArchiveError) -> String? {
        var path = Substring(raw)
        while path.hasPrefix("./") { path = path.dropFirst(2) }
        if isDirectory {
            while path.hasSuffix("/") { path = path.dropLast() }
            if path.isEmpty || path == "." { return nil }
        }
        let text = String(path)
        if let problem = PathRules.problem(in: text, limits: manifestLimits) {
            throw .unsafePath(path: DisplayText.escape(raw), problem: "\(problem)")
        }
        return text
    }

    /// Creates `path` and any missing parents, one component at a time, never following a link.
    private mutating func makeFolders(_ path: String) throws(ArchiveError) {
        if folders.contains(path) { return }
        var fd = dup(rootFD)
        defer { close(fd) }
        var current = ""
        for component in PathRules.components(of: path, omittingEmpty: true) {
            current = current.isEmpty ? String(component) : current + "/" + component
            if !folders.contains(current) {
                if mkdirat(fd, String(component), 0o700) != 0 && errno != EEXIST {
                    throw .storageFailed(
                        operation: "creating the folder", path: current, reason: Errno.current.description)
                }
                let key = PathRules.collisionKey(current)
                if let other = collisionKeys[key], other != current { throw .duplicatePath(path: current) }
                collisionKeys[key] = current
                folders.insert(current)
            }
            let next = openat(fd, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else {
                throw .storageFailed(
                    operation: "opening the folder", path: current, reason: Errno.current.description)
            }
            close(fd)
            fd = next
        }
    }

    private mutating func writeFile(
        _ path: String, header: ArchiveReader.Header, reader: ArchiveReader
    )
        throws(ArchiveError)
    {
        if let slash = path.unicodeScalars.lastIndex(of: "/") { try makeFolders(String(path[..<slash])) }
        let fd = LinuxCalls.openBeneath(rootFD, path, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { throw .duplicatePath(path: path) }
            throw .storageFailed(operation: "creating", path: path, reason: Errno.current.description)
        }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try reader.read(into: buffer)
            if count == 0 { break }
            bytes += UInt64(count)
            if bytes > limits.maxTotalBytes { throw .tooLarge(limit: limits.maxTotalBytes) }
            if let code = POSIX.writeAll(fd, UnsafeRawBufferPointer(start: buffer.baseAddress, count: count)) {
                throw .storageFailed(operation: "writing", path: path, reason: Errno(code).description)
            }
        }
        var times = [
            timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2 /* UTIME_OMIT */),
            timespec(tv_sec: Int(header.modificationTime), tv_nsec: 0),
        ]
        if fchmod(fd, mode_t(header.permissions & 0o777)) != 0 || futimens(fd, &times) != 0 {
            throw .storageFailed(operation: "setting the mode of", path: path, reason: Errno.current.description)
        }
        files += 1
    }

    /// Creates the links (after checking every one stays inside), then gives folders their modes and times.
    mutating func finish() throws(ArchiveError) -> ExtractionSummary {
        var table = LinkResolver()
        for link in links { table.add(linkAt: link.path, target: link.target) }
        for link in links where !table.staysInside(linkPath: link.path, target: link.target) {
            throw .linkLeavesTree(path: link.path, target: link.target)
        }
        for link in links {
            let parentFD: Int32
            let name: String
            if let slash = link.path.unicodeScalars.lastIndex(of: "/") {
                let parent = String(link.path[..<slash])
                try makeFolders(parent)
                parentFD = LinuxCalls.openBeneath(rootFD, parent, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                name = String(link.path[link.path.index(after: slash)...])
            } else {
                parentFD = dup(rootFD)
                name = link.path
            }
            guard parentFD >= 0 else {
                throw .storageFailed(
                    operation: "opening the folder of", path: link.path, reason: Errno.current.description)
            }
            defer { close(parentFD) }
            if symlinkat(link.target, parentFD, name) != 0 {
                if errno == EEXIST { throw .duplicatePath(path: link.path) }
                throw .storageFailed(
                    operation: "creating the link", path: link.path, reason: Errno.current.description)
            }
        }
        // Deepest first, so a folder's time is set after its contents are complete.
        for folder in folderTimes.sorted(by: {
            PathRules.components(of: $0.path).count > PathRules.components(of: $1.path).count
        }) {
            let fd = LinuxCalls.openBeneath(rootFD, folder.path, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            var times = [
                timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2 /* UTIME_OMIT */),
                timespec(tv_sec: Int(folder.time), tv_nsec: 0),
            ]
            _ = fchmod(fd, mode_t((folder.mode & 0o777) | 0o700))
            _ = futimens(fd, &times)
            close(fd)
        }
        return ExtractionSummary(
            topLevelNames: topLevel.sorted(), files: files, folders: folders.count, links: links.count, bytes: bytes)
    }
}
