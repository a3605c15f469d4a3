public import Foundation
import ShareDocuments
import ShareTLS

import ShareSystem

#if canImport(Glibc)
import Glibc
#endif

/// The partial transfers a receiver keeps in its inbox (``PartialTransfer``): where each one is, how
/// it is found again by the same sender for the same offer, and how long and how much is kept.
///
/// Each one is a staging area `.share-staging/r-<key>/` (``StagingArea``) holding the files as
/// received so far and `.share-partial.json`; the key binds the sender's fingerprint and the
/// offer's identity, so another key never reaches it.
public struct PartialStore: Sendable {
    /// The metadata file in a kept staging area.
    static let metadataName = ".share-partial.json"
    /// The prefix of kept staging areas' names.
    static let prefix = "r-"

    /// How long a partial transfer is kept after data last arrived.
    public static let defaultKeep: Duration = .seconds(24 * 3600)
    /// The most of the inbox filesystem's size that partial transfers may hold together.
    public static let defaultShare = 0.25

    /// The inbox.
    public let inbox: String
    /// How long a partial transfer is kept after data last arrived.
    public var keep: Duration
    /// The share of the filesystem's size partial transfers may hold together; the oldest go first.
    /// (Of its size, not of what is free: a disk that filled up during a transfer keeps the part
    /// written, so the send continues once space is freed.)
    public var share: Double

    /// The partial transfers of the inbox `inbox`.
    public init(inbox: String, keep: Duration = PartialStore.defaultKeep, share: Double = PartialStore.defaultShare) {
        self.inbox = inbox
        self.keep = keep
        self.share = share
    }

    /// The staging area name for an offer `offerID` from the key `fingerprint`.
    static func areaName(fingerprint: Fingerprint, offerID: [UInt8]) -> String {
        var hasher = SHA256()
        hasher.update(Array("share partial".utf8) + [0])
        hasher.update(fingerprint.bytes)
        hasher.update(offerID)
        return prefix + Hex.encode(Array(hasher.finalize().prefix(16)))
    }

    private var stagingFolder: String { inbox + "/" + StagingArea.folderName }

    /// Every partial transfer kept, oldest first, with the bytes each holds.
    public func list() -> [PartialTransfer] {
        // An area whose commit passed its decision point is no longer partial (it is finished
        // the next time a receiver starts or the sender continues).
        allAreas().filter { completed($0) == nil }
    }

    /// Every kept area, also those of commits interrupted after their decision point.
    func allAreas() -> [PartialTransfer] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: stagingFolder)) ?? []
        return names.filter { $0.hasPrefix(Self.prefix) }.compactMap { name in
            guard var partial = Self.read(stagingFolder + "/" + name), partial.id == name else { return nil }
            partial.heldBytes = Self.bytes(in: stagingFolder + "/" + name)
            return partial
        }
        .sorted { ($0.updatedAt, $0.id) < ($1.updatedAt, $1.id) }
    }

    /// The partial transfer `idOrPrefix` (at least 4 characters of its identifier, without `r-`
    /// or with it), if exactly one matches.
    public func find(_ idOrPrefix: String) -> [PartialTransfer] {
        let wanted = idOrPrefix.lowercased().hasPrefix(Self.prefix) ? idOrPrefix.lowercased() : Self.prefix + idOrPrefix.lowercased()
        guard wanted.count >= Self.prefix.count + 4 else { return [] }
        return list().filter { $0.id.hasPrefix(wanted) }
    }

    /// The kept transfer `candidate` continues (the same area, sender and offer), if it has not expired.
    func kept(_ candidate: PartialTransfer, now: Date = Date()) -> PartialTransfer? {
        let path = stagingFolder + "/" + candidate.id
        guard var partial = Self.read(path), partial.id == candidate.id,
            partial.senderFingerprint == candidate.senderFingerprint, partial.offerID == candidate.offerID,
            partial.expires(keep: keep) >= now
        else { return nil }
        partial.heldBytes = Self.bytes(in: path)
        return partial
    }

    /// Removes a partial transfer unless a running receiver is continuing it right now.
    /// - Returns: false when it is in use.
    public func remove(_ partial: PartialTransfer) -> Bool {
        let folderFD = open(stagingFolder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folderFD >= 0 else { return true }
        defer { close(folderFD) }
        let fd = openat(folderFD, partial.id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
        POSIX.removeTree(parent: folderFD, name: partial.id)
        return true
    }

    /// Removes partial transfers nobody continued within the keep window, then the oldest while
    /// they hold more than their share of the filesystem. Areas in use are left alone.
    public func expire(now: Date = Date()) {
        expireCompleted(now: now)
        var partials = list()
        for partial in partials where partial.expires(keep: keep) < now {
            _ = remove(partial)
        }
        partials = list()
        var held = partials.reduce(UInt64(0)) { $0 + $1.heldBytes }
        var info = statvfs()
        guard statvfs(inbox, &info) == 0 else { return }
        let size = UInt64(info.f_blocks) * UInt64(info.f_frsize)
        let allowed = UInt64(Double(size) * share)
        for partial in partials where held > allowed {
            if remove(partial) { held -= min(held, partial.heldBytes) }
        }
    }

    // MARK: Metadata

    /// The metadata of the area at `path`, if it has valid metadata.
    static func read(_ path: String) -> PartialTransfer? {
        guard let data = FileManager.default.contents(atPath: path + "/" + metadataName) else { return nil }
        return decode(data)
    }

    /// The metadata stored as `data`, if valid.
    static func decode(_ data: Data) -> PartialTransfer? { decode(data, as: PartialTransfer.self) }

    /// A record stored as `data` (dates as ``encode(_:)`` writes them), if valid.
    static func decode<Record: Decodable>(_ data: Data, as type: Record.Type) -> Record? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = StoredDates.decoding
        return try? decoder.decode(type, from: data)
    }

    /// The metadata as stored, with times to the millisecond (``StoredDates``): "oldest first" holds
    /// for two transfers kept within one second.
    static func encode(_ partial: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = StoredDates.encoding
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(partial)) ?? Data()
    }

    /// Bytes of regular files under `path` (links not followed).
    static func bytes(in path: String) -> UInt64 {
        guard let walker = FileManager.default.enumerator(atPath: path) else { return 0 }
        var total: UInt64 = 0
        while let relative = walker.nextObject() as? String {
            var info = stat()
            guard lstat(path + "/" + relative, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
                relative != metadataName
            else { continue }
            total += UInt64(info.st_size)
        }
        return total
    }
}
