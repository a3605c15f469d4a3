import Foundation
import ShareSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Where received documents wait until an application (or the receive folder) has taken them:
/// `$XDG_DATA_HOME/share/Inbox`.
///
/// Each document is one entry, `Inbox/<id>/`, holding the document under its original name and
/// `.share-entry.json` (the ``InboxEntry``; the name starts with `.share-`, which no received
/// document may, so the two can never collide). An entry is created whole by the receiver's
/// commit (it is renamed in from the staging area, `Inbox/.share-staging/`), and removed only
/// after its import succeeded. While a process imports an entry it holds an `flock` on the
/// entry's folder, so a receiver and `share inbox import` never import the same entry twice.
public struct Inbox: Sendable {
    /// The name of an entry's metadata file.
    public static let metadataName = ".share-entry.json"

    /// The inbox folder.
    public let directory: String

    /// An inbox at `directory` (created on first use).
    public init(directory: String) {
        self.directory = directory
    }

    /// Creates the inbox folder (mode 0700) and its missing parents.
    /// - Throws: ``InboxError/unusable(path:reason:)``.
    public func create() throws(InboxError) {
        do {
            try StagingArea.createDirectories(directory, mode: 0o700)
        } catch {
            throw .unusable(path: directory, reason: error.description)
        }
    }

    /// Every entry, oldest first, and a sentence for each entry whose metadata cannot be read.
    public func entries() -> (entries: [InboxEntry], problems: [String]) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return ([], []) }
        var entries: [InboxEntry] = []
        var problems: [String] = []
        for name in POSIX.directoryNames(consuming: fd) ?? [] where !name.hasPrefix(".") {
            do {
                entries.append(try entry(exactly: name))
            } catch {
                problems.append(error.description)
            }
        }
        entries.sort { ($0.receivedAt, $0.id) < ($1.receivedAt, $1.id) }
        return (entries, problems)
    }

    /// The entry whose identifier is `idOrPrefix`, or the only one starting with it.
    /// - Throws: ``InboxError``.
    public func entry(_ idOrPrefix: String) throws(InboxError) -> InboxEntry {
        try entry(exactly: try resolve(idOrPrefix))
    }

    /// The full identifier for `idOrPrefix` (an exact identifier, or a unique prefix of at least 4 digits).
    /// - Throws: ``InboxError/noSuchEntry(_:)`` or ``InboxError/ambiguous(_:matches:)``.
    public func resolve(_ idOrPrefix: String) throws(InboxError) -> String {
        let wanted = idOrPrefix.lowercased()
        guard !wanted.isEmpty, !wanted.hasPrefix("."), !wanted.contains("/") else { throw .noSuchEntry(idOrPrefix) }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .noSuchEntry(idOrPrefix) }
        let names = (POSIX.directoryNames(consuming: fd) ?? []).filter { !$0.hasPrefix(".") }
        if names.contains(wanted) { return wanted }
        let matches = wanted.count >= 4 ? names.filter { $0.hasPrefix(wanted) } : []
        if matches.count == 1 { return matches[0] }
        if matches.count > 1 { throw .ambiguous(idOrPrefix, matches: matches) }
        throw .noSuchEntry(idOrPrefix)
    }

    /// The absolute path of an entry's folder.
    public func folder(of id: String) -> String { directory + "/" + id }

    /// The absolute path of an entry's document.
    public func documentPath(of entry: InboxEntry) -> String { folder(of: entry.id) + "/" + entry.name }

    /// Whether another process is importing the entry right now.
    public func isBusy(_ id: String) -> Bool {
        let fd = open(folder(of: id), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return true }
        _ = flock(fd, LOCK_UN)
        return false
    }

    /// Takes the entry's lock (held until the lock is released), failing at once when someone else holds it.
    /// - Throws: ``InboxError/busy(id:)``, ``InboxError/noSuchEntry(_:)``.
    func lock(_ id: String) throws(InboxError) -> InboxEntryLock {
        let fd = open(folder(of: id), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw .noSuchEntry(id) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw .busy(id: id)
        }
        return InboxEntryLock(fd: fd)
    }

    /// Rewrites an entry's metadata atomically.
    /// - Throws: ``InboxError/storageFailed(operation:path:reason:)``.
    func save(_ entry: InboxEntry) throws(InboxError) {
        let path = folder(of: entry.id) + "/" + Self.metadataName
        do {
            try AtomicFile.write(Self.encode(entry), to: path, mode: 0o600)
        } catch {
            throw .storageFailed(operation: "writing", path: path, reason: error.description)
        }
    }

    /// Deletes an entry and its document (a user's `share inbox remove`).
    /// - Returns: the removed entry.
    /// - Throws: ``InboxError``; ``InboxError/busy(id:)`` while it is being imported.
    @discardableResult
    public func remove(_ idOrPrefix: String) throws(InboxError) -> InboxEntry {
        let id = try resolve(idOrPrefix)
        let lock = try lock(id)
        defer { lock.release() }
        let entry = (try? entry(exactly: id)) ?? InboxEntry.damaged(id: id)
        try removeFolder(id)
        return entry
    }

    /// Deletes an entry's folder; the caller holds its lock.
    func removeFolder(_ id: String) throws(InboxError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .storageFailed(operation: "opening", path: directory, reason: POSIX.errorText()) }
        defer { close(fd) }
        POSIX.removeTree(parent: fd, name: id)
        var info = stat()
        if fstatat(fd, id, &info, AT_SYMLINK_NOFOLLOW) == 0 {
            throw .storageFailed(operation: "removing", path: folder(of: id), reason: "some files could not be deleted")
        }
        _ = fsync(fd)
    }

    private func entry(exactly id: String) throws(InboxError) -> InboxEntry {
        let path = folder(of: id) + "/" + Self.metadataName
        guard let data = FileManager.default.contents(atPath: path) else {
            var info = stat()
            if stat(folder(of: id), &info) != 0 { throw .noSuchEntry(id) }
            throw .damaged(id: id, reason: "its \(Self.metadataName) is missing or unreadable")
        }
        do {
            var entry = try Self.decoder.decode(InboxEntry.self, from: data)
            entry.id = id
            return entry
        } catch {
            throw .damaged(id: id, reason: "its \(Self.metadataName) cannot be parsed")
        }
    }

    /// The JSON of an entry (pretty, sorted keys, ISO 8601 dates to the millisecond: entries
    /// received within one second still list and import in the order they arrived).
    static func encode(_ entry: InboxEntry) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = StoredDates.encoding
        return (try? encoder.encode(entry)) ?? Data()
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = StoredDates.decoding
        return decoder
    }
}

/// The lock on one inbox entry while it is imported or removed; released on ``release()`` or deinit.
final class InboxEntryLock: @unchecked Sendable {
    // @unchecked: one importer owns it on one thread; the descriptor is closed once.
    private var fd: Int32

    init(fd: Int32) { self.fd = fd }

    deinit { release() }

    /// Releases the lock.
    func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }
}

extension InboxEntry {
    /// A placeholder for an entry whose metadata cannot be read.
    static func damaged(id: String) -> InboxEntry {
        var entry = InboxEntry(
            name: "?", isBundle: false, files: 0, bytes: 0, senderName: "", senderFingerprint: "",
            receivedAt: Date(timeIntervalSince1970: 0), declaredType: nil)
        entry.id = id
        return entry
    }
}
