public import ShareDocuments

import ShareSystem

#if canImport(Glibc)
import Glibc
#endif

/// What a send will offer: the manifest built from local paths, and where each file's content is.
public struct PreparedSend: Sendable {
    /// The validated manifest to offer.
    public let manifest: Manifest
    /// For each file of the manifest (in order), its absolute local path.
    public let sources: SourcePaths
    /// For each item, the path the user named.
    public let itemSources: [String]
    /// Special files inside the folders that were left out (named pipes, sockets, devices; with
    /// ``ScanOptions/followLinks``, links that lead nowhere or in a circle), in the order found.
    public let skipped: [SkippedFile]
    /// How many entries the `--exclude` patterns left out (a folder counts once).
    public let excludedCount: Int
    /// For each file, whether its path may be followed if it is a link (paths the user named, and
    /// every file with ``ScanOptions/followLinks``).
    let followLinks: [Bool]

    /// Scans `paths` (files and folders) into an offer.
    ///
    /// A path the user names is followed if it is a link (as `cp` does). A folder becomes a bundle
    /// with its relative paths, empty folders, permission bits (never setuid, setgid or sticky) and
    /// modification times. A link inside a folder is kept only when it points inside the folder (an
    /// absolute target inside it is made relative); otherwise the send is refused, unless
    /// ``ScanOptions/followLinks`` sends what links point to instead. Named pipes, sockets and
    /// devices inside a folder are skipped (``skipped``); entries matching ``ScanOptions/excludes``
    /// are left out.
    /// - Parameter typeOf: the declared type identifier for an item, given its absolute local path
    ///   and whether it is a folder; empty when unknown. Identifiers that are not well-formed
    ///   (docs/PROTOCOL.md §7) are left out.
    /// - Throws: ``SendError`` naming the path (as the user gave it) and the problem; every name the
    ///   protocol refuses is listed at once.
    public static func scan(
        _ paths: [String], options: ScanOptions = ScanOptions(), typeOf: (String, Bool) -> String = { _, _ in "" }
    ) throws(SendError) -> PreparedSend {
        var scanner = Scanner(options: options)
        for path in paths { try scanner.addItem(path, typeOf: typeOf) }
        if !scanner.badNames.isEmpty { throw .cannotOffer(scanner.badNamesMessage()) }
        let manifest: Manifest
        do {
            manifest = try Manifest(entries: scanner.entries)
        } catch {
            throw .cannotOffer(scanner.explain(error))
        }
        return PreparedSend(
            manifest: manifest, sources: SourcePaths(manifest: manifest, itemParents: scanner.itemParents),
            itemSources: scanner.itemSources, skipped: scanner.skipped, excludedCount: scanner.excludedCount,
            followLinks: scanner.followLinks)
    }
}

/// How ``PreparedSend/scan(_:options:typeOf:)`` walks folders.
public struct ScanOptions: Sendable {
    /// Entries to leave out (`--exclude`).
    public var excludes = ExcludeRules()
    /// Send what links inside folders point to, instead of the links (`-L`, `--follow-links`).
    public var followLinks = false

    /// Creates options.
    public init(excludes: ExcludeRules = ExcludeRules(), followLinks: Bool = false) {
        self.excludes = excludes
        self.followLinks = followLinks
    }
}

/// An entry of a folder that a send leaves out, with why.
public struct SkippedFile: Sendable, Hashable {
    /// What it is.
    public enum Kind: String, Sendable {
        case fifo, socket, characterDevice, blockDevice
        /// With `--follow-links`: a link whose target does not exist.
        case brokenLink
        /// With `--follow-links`: a link to a folder it is itself inside.
        case linkLoop
    }

    /// Its path as the user would type it (the folder as given, then the path inside it).
    public var path: String
    /// What it is.
    public var kind: Kind
    /// Why it was left out, in words.
    public var reason: String
}

/// The absolute local path of each file of a ``PreparedSend``: the folder the item was found in,
/// joined with the file's path in the offer. Computed when asked, so a million files do not keep
/// a million more strings.
public struct SourcePaths: Sendable, RandomAccessCollection {
    let manifest: Manifest
    /// For each item, the absolute folder it is in.
    let itemParents: [String]

    public var startIndex: Int { 0 }
    public var endIndex: Int { manifest.fileEntryIndices.count }

    /// The local path of the `index`-th file.
    public subscript(index: Int) -> String {
        let entryIndex = manifest.fileEntryIndices[index]
        let parent = itemParents[manifest.itemIndex(ofEntry: entryIndex) ?? 0]
        return (parent == "/" ? "" : parent) + "/" + manifest.entries[entryIndex].path
    }
}

/// Walks local paths into manifest entries.
private struct Scanner {
    let options: ScanOptions
    var entries = ManifestEntries()
    var itemParents: [String] = []
    var itemSources: [String] = []
    var followLinks: [Bool] = []
    var skipped: [SkippedFile] = []
    var excludedCount = 0
    /// Names the protocol refuses (shown path, pattern that would leave it out, why).
    var badNames: [(shown: String, exclude: String, problem: String)] = []
    var badNameCount = 0
    /// The item being walked: the path as the user gave it (for messages) and its absolute path.
    var shownRoot = ""
    var absoluteRoot = ""

    /// How many refused names a message lists.
    static let badNamesShown = 10

    init(options: ScanOptions) { self.options = options }

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
        shownRoot = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        absoluteRoot = absolute
        if let problem = PathRules.problem(in: name) {
            if Self.isRenamable(problem) {
                noteBadName(shown: shownRoot, exclude: nil, name: name, problem: problem)
                return
            }
            throw .cannotOffer("cannot send '\(DisplayText.escape(path))': its name is not allowed (\(problem))")
        }
        itemSources.append(path)
        itemParents.append(Self.parentPath(of: absolute))
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            guard access(path, R_OK) == 0 else { throw .cannotRead(path: path, reason: POSIX.errorText()) }
            try add(Self.entry(.file, path: name, info: info, declaredType: Self.wellFormed(typeOf(absolute, false))))
            followLinks.append(true)
        case S_IFDIR:
            try add(Self.entry(.directory, path: name, info: info, declaredType: Self.wellFormed(typeOf(absolute, true))))
            var ancestors: Set<FileID> = [FileID(info)]
            try walk(directory: absolute, relative: name, inside: [], ancestors: &ancestors)
        default:
            throw .unsupportedFile(path: path, kind: Self.kindName(info.st_mode))
        }
    }

    /// Walks the folder at `directory`, whose offer path is `relative` and whose path below the
    /// item's top is `inside`; `ancestors` are the folders above it (for link loops).
    mutating func walk(
        directory: String, relative: String, inside: [Substring], ancestors: inout Set<FileID>
    ) throws(SendError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotRead(path: shown(inside), reason: POSIX.errorText()) }
        defer { close(fd) }
        guard let names = POSIX.directoryNames(consuming: dup(fd)) else {
            throw .cannotRead(path: shown(inside), reason: POSIX.errorText())
        }
        for name in names {
            let components = inside + [Substring(name)]
            let childPath = directory + "/" + name
            let childRelative = relative + "/" + name
            var info = stat()
            guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                throw .cannotRead(path: shown(components), reason: POSIX.errorText())
            }
            var kind = info.st_mode & S_IFMT
            var followed = false
            if kind == S_IFLNK && options.followLinks {
                var target = stat()
                guard fstatat(fd, name, &target, 0) == 0 else {
                    skip(components, .brokenLink, "a symbolic link to something that does not exist (\(POSIX.errorText()))")
                    continue
                }
                info = target
                kind = info.st_mode & S_IFMT
                followed = true
            }
            if options.excludes.excludes(components, isDirectory: kind == S_IFDIR) {
                excludedCount += 1
                continue
            }
            let problem = PathRules.problem(inComponent: Substring(name))
            if problem.map(Self.isRenamable) ?? name.unicodeScalars.contains(where: PathRules.isForbidden) {
                noteBadName(shown: shown(components), exclude: Self.anchoredPattern(components), name: name, problem: problem)
                continue
            }
            if let problem {
                throw .cannotOffer("cannot send '\(DisplayText.escape(shown(components)))': its name is not allowed (\(problem))")
            }
            switch kind {
            case S_IFREG:
                guard faccessat(fd, name, R_OK, 0) == 0 else {
                    throw .cannotRead(path: shown(components), reason: POSIX.errorText())
                }
                try add(Self.entry(.file, path: childRelative, info: info))
                followLinks.append(followed)
            case S_IFDIR:
                let id = FileID(info)
                if followed && ancestors.contains(id) {
                    skip(components, .linkLoop, "a symbolic link to a folder it is itself inside")
                    continue
                }
                try add(Self.entry(.directory, path: childRelative, info: info))
                ancestors.insert(id)
                try walk(directory: childPath, relative: childRelative, inside: components, ancestors: &ancestors)
                ancestors.remove(id)
            case S_IFLNK:
                var target = try Self.readLink(fd, name, path: shown(components))
                if target.hasPrefix("/") {
                    guard let inside = Self.relativeTarget(absolute: target, linkDirectory: directory, root: absoluteRoot) else {
                        throw .linkLeavesFolder(path: shown(components), target: target)
                    }
                    target = inside
                }
                var entry = Self.entry(.symlink, path: childRelative, info: info)
                entry.mode = 0o777
                entry.linkTarget = target
                try add(entry)
            case S_IFIFO: skip(components, .fifo, "a named pipe (FIFO)")
            case S_IFSOCK: skip(components, .socket, "a socket")
            case S_IFCHR: skip(components, .characterDevice, "a character device")
            case S_IFBLK: skip(components, .blockDevice, "a block device")
            default: throw .unsupportedFile(path: shown(components), kind: Self.kindName(info.st_mode))
            }
        }
    }

    /// Adds `entry`, or refuses as soon as the offer would hold more entries or bytes of entries than
    /// the protocol allows (before walking on through a tree that cannot be sent).
    mutating func add(_ entry: ManifestEntry) throws(SendError) {
        let limits = ManifestLimits.protocolDefault
        if entries.count == limits.maxEntries {
            throw .cannotOffer(
                "cannot send '\(DisplayText.escape(shownRoot))': this send would offer more than "
                    + "\(DisplayText.grouped(limits.maxEntries)) files, folders and links, the most one offer may hold; "
                    + "send fewer at once (a folder's subfolders one by one) or leave some out with --exclude PATTERN")
        }
        if entries.encodedSize + entry.encodedSize > limits.maxOfferBytes {
            throw .cannotOffer(
                "cannot send '\(DisplayText.escape(shownRoot))': the names of the files, folders and links of this send "
                    + "would take more than \(limits.maxOfferBytes >> 20) MiB in the offer, the most one offer may hold; "
                    + "send fewer at once or leave some out with --exclude PATTERN")
        }
        entries.append(entry)
    }

    /// The path of an entry as the user would type it: the item as given, then the path inside it.
    func shown(_ components: [Substring]) -> String {
        ([Substring(shownRoot)] + components).joined(separator: "/")
    }

    mutating func skip(_ components: [Substring], _ kind: SkippedFile.Kind, _ what: String) {
        skipped.append(SkippedFile(path: shown(components), kind: kind, reason: "\(what): share sends only files, folders and links"))
    }

    /// Problems of a name its owner fixes by renaming the file, listed all at once: forbidden
    /// characters, and names that are not names (only dots or white space, a home folder's `~`).
    static func isRenamable(_ problem: PathProblem) -> Bool {
        switch problem {
        case .forbiddenCharacter, .blankComponent, .dotsComponent, .homeFolderComponent: true
        default: false
        }
    }

    mutating func noteBadName(shown: String, exclude: String?, name: String, problem: PathProblem? = nil) {
        badNameCount += 1
        guard badNames.count < Self.badNamesShown else { return }
        switch problem {
        case .blankComponent?:
            badNames.append((shown, exclude ?? "", "its name is only white space or invisible characters"))
            return
        case .dotsComponent?:
            badNames.append((shown, exclude ?? "", "its name is only dots"))
            return
        case .homeFolderComponent?:
            badNames.append((shown, exclude ?? "", "its name begins with '~', which a shell reads as a home folder"))
            return
        default: break
        }
        let characters = name.unicodeScalars.filter(PathRules.isForbidden)
        var described: [String] = []
        for scalar in characters where !described.contains(Self.characterName(scalar)) {
            described.append(Self.characterName(scalar))
        }
        badNames.append((shown, exclude ?? "", "its name contains " + described.joined(separator: " and ")))
    }

    /// Every refused name at once, with what to do.
    func badNamesMessage() -> String {
        let count = badNameCount == 1 ? "a name" : "\(badNameCount) names"
        var lines = [
            "cannot send \(count) that the receiver would refuse (share does not send backslashes or control characters "
                + "in names, nor names that are only dots or white space, or that a shell reads as a home folder like '~'):"
        ]
        for bad in badNames { lines.append("  '\(DisplayText.escape(bad.shown))': \(bad.problem)") }
        if badNameCount > badNames.count { lines.append("  ... and \(badNameCount - badNames.count) more") }
        let example = badNames.first { !$0.exclude.isEmpty }.map { " (e.g. --exclude '\($0.exclude)')" } ?? ""
        lines.append("Rename \(badNameCount == 1 ? "it" : "them"), or leave \(badNameCount == 1 ? "it" : "them") out with --exclude\(example).")
        return lines.joined(separator: "\n")
    }

    /// The manifest's refusal, with paths as the user gave them.
    func explain(_ error: ManifestError) -> String {
        switch error {
        case .duplicatePath(let path), .collidingPaths(let path, _):
            return "two items would both be named '\(DisplayText.escape(path))' on the receiver; rename one or send them separately"
        case .linkLeavesBundle(let path, let target):
            return SendError.linkLeavesFolder(path: shownPath(ofEntry: path), target: target).description
        default:
            return "cannot send this: \(error)"
        }
    }

    /// An offer path (`Item/a/b`) as the user would type it.
    func shownPath(ofEntry path: String) -> String {
        let components = PathRules.components(of: path)
        let names = entries.indices.filter { !entries.path(at: $0).contains("/") }.map { entries.path(at: $0) }
        guard let top = components.first, let item = names.firstIndex(where: { $0.utf8.elementsEqual(top.utf8) }),
            item < itemSources.count
        else { return path }
        let root = itemSources[item]
        let shownRoot = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        return ([Substring(shownRoot)] + components.dropFirst()).joined(separator: "/")
    }

    /// A pattern for `--exclude` that matches exactly this entry (characters that cannot be typed
    /// become `?`).
    static func anchoredPattern(_ components: [Substring]) -> String {
        "/" + components.map { component in
            String(
                component.unicodeScalars.map { scalar -> String in
                    if PathRules.isForbidden(scalar) { return "?" }
                    if "*?[]!".unicodeScalars.contains(scalar) { return "\\" + String(scalar) }
                    if scalar == "'" { return "?" }
                    return String(scalar)
                }.joined())
        }.joined(separator: "/")
    }

    /// `a backslash (\)`, `a line break`, `a tab`, `the control character U+001B`.
    static func characterName(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x5C: "a backslash (\\), which separates folders on some systems"
        case 0x0A: "a line break"
        case 0x0D: "a carriage return"
        case 0x09: "a tab"
        default: "the control character U+\(String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4))"
        }
    }

    static func entry(_ kind: EntryKind, path: String, info: stat, declaredType: String = "") -> ManifestEntry {
        ManifestEntry(
            kind: kind, path: path, mode: UInt16(info.st_mode & 0o777), modificationSeconds: Int64(info.st_mtim.tv_sec),
            modificationNanoseconds: UInt32(clamping: info.st_mtim.tv_nsec), size: kind == .file ? UInt64(info.st_size) : 0,
            declaredType: declaredType)
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

    static func parentPath(of absolute: String) -> String {
        "/" + normalize(absolute).dropLast().joined(separator: "/")
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

/// A file's identity on its filesystem (device and inode), to notice a link that leads back up.
struct FileID: Hashable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
