internal import CShareLinux
public import ShareDocuments

#if canImport(Glibc)
import Glibc
#endif

/// What a send will offer: the manifest built from local paths, and where each file's content is.
public struct PreparedSend: Sendable {
    /// The validated manifest to offer.
    public let manifest: Manifest
    /// For each file of the manifest (in order), its absolute local path.
    public let sources: [String]
    /// For each item, the path the user named.
    public let itemSources: [String]
    /// For each file, whether its path may be followed if it is a link (only paths the user named).
    let followLinks: [Bool]

    /// Scans `paths` (files and folders) into an offer.
    ///
    /// A path the user names is followed if it is a link (as `cp` does). A folder becomes a bundle
    /// with its relative paths, empty folders, permission bits (never setuid, setgid or sticky) and
    /// modification times. A link inside a folder is kept only when it points inside the folder (an
    /// absolute target inside it is made relative); otherwise the send is refused.
    /// - Parameter typeOf: the declared type identifier for an item, given its absolute local path
    ///   and whether it is a folder; empty when unknown. Identifiers that are not well-formed
    ///   (docs/PROTOCOL.md §7) are left out.
    /// - Throws: ``SendError`` naming the path and the problem.
    public static func scan(_ paths: [String], typeOf: (String, Bool) -> String = { _, _ in "" }) throws(SendError)
        -> PreparedSend
    {
        var scanner = Scanner()
        for path in paths { try scanner.addItem(path, typeOf: typeOf) }
        let manifest: Manifest
        do {
            manifest = try Manifest(entries: scanner.entries)
        } catch {
            throw .cannotOffer(Self.explain(error))
        }
        return PreparedSend(
            manifest: manifest, sources: scanner.sources, itemSources: scanner.itemSources,
            followLinks: scanner.followLinks)
    }

    private static func explain(_ error: ManifestError) -> String {
        switch error {
        case .duplicatePath(let path), .collidingPaths(let path, _):
            "two items would both be named '\(DisplayText.escape(path))' on the receiver; rename one or send them separately"
        case .linkLeavesBundle(let path, let target):
            SendError.linkLeavesFolder(path: path, target: target).description
        default:
            "cannot send this: \(error)"
        }
    }
}

/// Walks local paths into manifest entries.
private struct Scanner {
    var entries: [ManifestEntry] = []
    var sources: [String] = []
    var itemSources: [String] = []
    var followLinks: [Bool] = []

    /// `identifier` when it may be offered, else empty.
    static func wellFormed(_ identifier: String) -> String {
        identifier.isEmpty || Manifest.isValidTypeIdentifier(identifier) ? identifier : ""
    }

    mutating func addItem(_ path: String, typeOf: (String, Bool) -> String) throws(SendError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .cannotRead(path: path, reason: POSIX.errorText()) }
        let absolute = Self.absolutePath(path)
        let name = Self.lastComponent(of: absolute)
        guard !name.isEmpty, name != "/" else {
            throw .cannotOffer("cannot send '\(path)': it has no name to give the receiver")
        }
        if let problem = PathRules.problem(in: name) {
            throw .cannotOffer("cannot send '\(DisplayText.escape(path))': its name is not allowed (\(problem))")
        }
        itemSources.append(path)
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            guard access(path, R_OK) == 0 else { throw .cannotRead(path: path, reason: POSIX.errorText()) }
            entries.append(Self.entry(.file, path: name, info: info, declaredType: Self.wellFormed(typeOf(absolute, false))))
            sources.append(absolute)
            followLinks.append(true)
        case S_IFDIR:
            entries.append(Self.entry(.directory, path: name, info: info, declaredType: Self.wellFormed(typeOf(absolute, true))))
            try walk(directory: absolute, relative: name, bundleRoot: absolute)
        default:
            throw .unsupportedFile(path: path, kind: Self.kindName(info.st_mode))
        }
    }

    mutating func walk(directory: String, relative: String, bundleRoot: String) throws(SendError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotRead(path: directory, reason: POSIX.errorText()) }
        defer { close(fd) }
        guard let names = POSIX.directoryNames(consuming: dup(fd)) else {
            throw .cannotRead(path: directory, reason: POSIX.errorText())
        }
        for name in names {
            let childPath = directory + "/" + name
            let childRelative = relative + "/" + name
            if let problem = PathRules.problem(inComponent: Substring(name)) ?? Self.characterProblem(name) {
                throw .cannotOffer("cannot send '\(DisplayText.escape(childPath))': its name is not allowed (\(problem))")
            }
            var info = stat()
            guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                throw .cannotRead(path: childPath, reason: POSIX.errorText())
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                guard faccessat(fd, name, R_OK, 0) == 0 else { throw .cannotRead(path: childPath, reason: POSIX.errorText()) }
                entries.append(Self.entry(.file, path: childRelative, info: info))
                sources.append(childPath)
                followLinks.append(false)
            case S_IFDIR:
                entries.append(Self.entry(.directory, path: childRelative, info: info))
                try walk(directory: childPath, relative: childRelative, bundleRoot: bundleRoot)
            case S_IFLNK:
                var target = try Self.readLink(fd, name, path: childPath)
                if target.hasPrefix("/") {
                    guard let inside = Self.relativeTarget(absolute: target, linkDirectory: directory, root: bundleRoot) else {
                        throw .linkLeavesFolder(path: childPath, target: target)
                    }
                    target = inside
                }
                var entry = Self.entry(.symlink, path: childRelative, info: info)
                entry.mode = 0o777
                entry.linkTarget = target
                entries.append(entry)
            default:
                throw .unsupportedFile(path: childPath, kind: Self.kindName(info.st_mode))
            }
        }
    }

    static func entry(_ kind: EntryKind, path: String, info: stat, declaredType: String = "") -> ManifestEntry {
        ManifestEntry(
            kind: kind, path: path, mode: UInt16(info.st_mode & 0o777), modificationSeconds: Int64(info.st_mtim.tv_sec),
            modificationNanoseconds: UInt32(clamping: info.st_mtim.tv_nsec), size: kind == .file ? UInt64(info.st_size) : 0,
            declaredType: declaredType)
    }

    static func characterProblem(_ name: String) -> PathProblem? {
        name.unicodeScalars.first(where: PathRules.isForbidden).map { .forbiddenCharacter($0) }
    }

    static func readLink(_ fd: Int32, _ name: String, path: String) throws(SendError) -> String {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = readlinkat(fd, name, &buffer, buffer.count - 1)
        guard count >= 0 else { throw .cannotRead(path: path, reason: POSIX.errorText()) }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Turns an absolute link target inside `root` into one relative to `linkDirectory`; nil when
    /// the target is outside `root`.
    static func relativeTarget(absolute: String, linkDirectory: String, root: String) -> String? {
        let target = normalize(absolute)
        let rootParts = normalize(root)
        guard target.starts(with: rootParts) else { return nil }
        let from = normalize(linkDirectory)
        var common = 0
        while common < from.count && common < target.count && from[common] == target[common] { common += 1 }
        let ups = Array(repeating: "..", count: from.count - common)
        let rest = target[common...]
        let parts = ups + rest
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    static func normalize(_ path: String) -> [String] {
        var parts: [String] = []
        for component in PathRules.components(of: path, omittingEmpty: true) {
            if PathRules.isDot(component) { continue }
            if PathRules.isDotDot(component) {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(String(component))
        }
        return parts
    }

    static func absolutePath(_ path: String) -> String {
        if path.hasPrefix("/") { return "/" + normalize(path).joined(separator: "/") }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "/" + normalize(cwd + "/" + path).joined(separator: "/")
    }

    static func lastComponent(of path: String) -> String {
        normalize(path).last ?? "/"
    }

    static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "named pipe (FIFO)"
        case S_IFSOCK: "socket"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        case S_IFLNK: "symbolic link"
        default: "special file"
        }
    }
}
