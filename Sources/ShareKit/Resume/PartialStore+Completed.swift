import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Completed offers (``CompletedOffer``): `.share-completed/r-<key>.json` in the inbox, under the
/// same key as the offer's kept area, written at the commit's decision point and kept for the keep
/// window.
extension PartialStore {
    /// The folder of completion records in the inbox.
    static let completedFolderName = ".share-completed"

    private var completedFolder: String { inbox + "/" + Self.completedFolderName }

    private func completedPath(_ id: String) -> String { completedFolder + "/" + id + ".json" }

    /// The record of `candidate`'s offer (the same sender, the same offer) if it was committed
    /// within the keep window.
    func completed(_ candidate: PartialTransfer, now: Date = Date()) -> CompletedOffer? {
        guard let data = FileManager.default.contents(atPath: completedPath(candidate.id)),
            let record = Self.decode(data, as: CompletedOffer.self),
            record.senderFingerprint == candidate.senderFingerprint, record.offerID == candidate.offerID,
            record.expires(keep: keep) >= now
        else { return nil }
        return record
    }

    /// Writes the record of the offer kept as `id`, durably (the file and its folder are synced):
    /// once this returns, the offer counts as delivered.
    func save(_ record: CompletedOffer, id: String) throws(ReceiveError) {
        var attempts = 0
        while true {
            do {
                return try AtomicFile.write(Self.encode(record), to: completedPath(id), mode: 0o600)
            } catch {
                // Another transfer may have just removed the (then empty) folder: once more.
                attempts += 1
                guard attempts < 3 else {
                    throw .storageFailed(
                        operation: "recording the commit of", path: completedPath(id), reason: "\(error)")
                }
            }
        }
    }

    /// Forgets the completed offer kept as `id` (its sender has the receipt).
    func forgetCompleted(_ id: String) {
        unlink(completedPath(id))
        _ = rmdir(completedFolder)
    }

    /// Finishes the commits a receiver was killed in after their decision point (entries not yet
    /// renamed into the inbox are renamed now), leaving alone those a running receiver holds.
    public func finishInterruptedCommits() {
        for area in allAreas() {
            guard let record = completed(area, now: .distantPast),
                let staging = try? StagingArea(root: inbox, resumable: area, lockWait: .zero)
            else { continue }
            staging.finishCommit(record)
        }
    }

    /// Forgets completion records older than the keep window (and unreadable ones).
    func expireCompleted(now: Date = Date()) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: completedFolder)) ?? []
        for name in names where name.hasPrefix(Self.prefix) && name.hasSuffix(".json") {
            let path = completedFolder + "/" + name
            let record = FileManager.default.contents(atPath: path).flatMap { Self.decode($0, as: CompletedOffer.self) }
            guard record.map({ $0.expires(keep: keep) < now }) ?? true else { continue }
            // A record whose area is still there belongs to an interrupted commit: it stays until
            // that commit is finished.
            let area = inbox + "/" + StagingArea.folderName + "/" + String(name.dropLast(".json".count))
            if record != nil, FileManager.default.fileExists(atPath: area) { continue }
            unlink(path)
        }
        _ = rmdir(completedFolder)
    }
}
