import ShareSystem
import Foundation
import ShareDocuments
import ShareTLS
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where one incoming transfer is written before it is committed (docs/PROTOCOL.md §6).
///
/// The area is `.share-staging/<random>/` inside the inbox (``Inbox``), so it is on the inbox's
/// filesystem and each item can be renamed into its own inbox entry atomically. Everything is
/// created relative to the area's descriptor with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`,
/// so no name can reach outside it even if the manifest checks were wrong. The area holds an
/// `flock` while it is in use; a receiver that starts later deletes areas nobody holds (left by
/// a killed receiver).
///
/// The commit makes the transfer durable in whichever of two ways is cheaper now (``SyncMethod``).
///
/// > Warning: Not thread-safe; one transfer's writer thread uses it.
final class StagingArea {
    /// The folder's name under the inbox.
    static let folderName = ".share-staging"

    /// The inbox.
    let root: String
    private let rootDirectoryFD: Int32
    private let stagingFD: Int32
    private let areaFD: Int32
    private let areaName: String
    private var parent: (path: String, fd: Int32)?
    private var isFinished = false
    /// Whether received files keep execute bits (``ReceivedModes``).
    let executableBits: ExecutableBits
    /// The receiver's umask, applied to every mode.
    let umask: UInt16

    /// The partial transfer this area continues or may be kept as (nil: it is discarded when the
    /// transfer fails).
    private(set) var partial: PartialTransfer?
    /// Whether the area existed before (a partial transfer being continued).
    private(set) var isContinued = false

    /// How a commit makes what the transfer wrote durable (docs/ARCHITECTURE.md, "Commit").
    enum SyncMethod: Sendable, Equatable {
        /// One `syncfs` of the inbox's filesystem: cheapest when little else is unwritten (it then
        /// writes only this transfer's data and metadata, in large batches), but it waits for every
        /// other program's unwritten data on the filesystem too.
        case filesystem
        /// An `fsync` of each file and folder the transfer wrote (``SyncQueue``): never waits for
        /// other programs' data, but costs a synchronous write per file.
        case ownFiles
    }

    /// Other programs' unwritten data (`/proc/meminfo` `Dirty` + `Writeback`, less what this area
    /// wrote) from which a commit syncs its own files instead of the filesystem: 64 MiB, which one
    /// `syncfs` writes in well under a second even on a slow disk, while 10,000 own `fsync`s cost
    /// about a second on the fastest.
    static let defaultBusyDiskBytes: UInt64 = 64 << 20
    /// The threshold this area uses (a test sets 0 or `.max` to force either way).
    let busyDiskBytes: UInt64
    /// Syncs the files and folders of a commit that does not sync the whole filesystem.
    let syncs: SyncQueue
    /// The way the last commit made its data durable (nil before a commit).
    private(set) var syncMethod: SyncMethod?
    /// Bytes of the files finished in this area: at least what it wrote that may still be unwritten.
    private var finishedBytes: UInt64 = 0
    /// Inboxes whose parent folders this process has synced (a commit that syncs its own files
    /// makes the inbox's own entry durable once).
    private static let syncedInboxes = Mutex<Set<String>>([])

    /// Creates the area in the inbox `root`, creating the inbox when missing. With `resumable`, the
    /// area is the one for that partial transfer (``PartialStore``): an existing one is continued
    /// (its lock is waited for up to `lockWait`, while an older connection of the same sender lets
    /// go of it), and the area is kept when the transfer fails (``keep()``).
    init(
        root: String, resumable: PartialTransfer? = nil, lockWait: Duration = .seconds(5),
        executableBits: ExecutableBits = .removed, umask: UInt16 = 0o022,
        busyDiskBytes: UInt64 = StagingArea.defaultBusyDiskBytes, recordsSyncs: Bool = false
    ) throws(ReceiveError) {
        self.root = root
        self.busyDiskBytes = busyDiskBytes
        self.syncs = SyncQueue(recordsPaths: recordsSyncs)
        self.executableBits = executableBits
        self.umask = umask
        do {
            try Self.createDirectories(root, mode: 0o700)
        } catch {
            throw .inboxUnusable(path: root, reason: error.reason)
        }
        let rootDirectoryFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootDirectoryFD >= 0 else {
            throw .inboxUnusable(path: root, reason: POSIX.errorText())
        }
        if mkdirat(rootDirectoryFD, Self.folderName, 0o700) != 0 && errno != EEXIST {
            let reason = POSIX.errorText()
            close(rootDirectoryFD)
            throw .inboxUnusable(path: root, reason: reason)
        }
        let stagingFD = openat(rootDirectoryFD, Self.folderName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard stagingFD >= 0 else {
            let reason = POSIX.errorText()
            close(rootDirectoryFD)
            throw .inboxUnusable(path: root, reason: reason)
        }
        let name = resumable?.id ?? Self.randomName()
        var existed = false
        if mkdirat(stagingFD, name, 0o700) != 0 {
            existed = errno == EEXIST && resumable != nil
            guard existed else {
                let reason = POSIX.errorText()
                close(stagingFD)
                close(rootDirectoryFD)
                throw .inboxUnusable(path: root, reason: reason)
            }
        }
        var areaFD = openat(stagingFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        var locked = areaFD >= 0 && Self.lock(areaFD, waiting: existed ? lockWait : .zero)
        var info = stat()
        if locked, fstat(areaFD, &info) == 0, info.st_nlink == 0 {
            // The connection that held it finished its commit and removed it meanwhile: a new one.
            close(areaFD)
            existed = mkdirat(stagingFD, name, 0o700) != 0
            areaFD = openat(stagingFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            locked = areaFD >= 0 && Self.lock(areaFD, waiting: .zero)
        }
        guard locked else {
            let reason = areaFD >= 0 ? "another connection of the same sender is still using it" : POSIX.errorText()
            if areaFD >= 0 { close(areaFD) }
            close(stagingFD)
            close(rootDirectoryFD)
            throw .inboxUnusable(path: root, reason: reason)
        }
        if existed, let resumable {
            // Continued only if it is this sender's area for this offer; anything else starts over.
            let kept = Self.readMetadata(areaFD)
            if kept?.senderFingerprint == resumable.senderFingerprint && kept?.offerID == resumable.offerID {
                isContinued = true
            } else {
                for entry in POSIX.directoryNames(consuming: dup(areaFD)) ?? [] {
                    POSIX.removeTree(parent: areaFD, name: entry)
                }
            }
        }
        partial = resumable
        self.rootDirectoryFD = rootDirectoryFD
        self.stagingFD = stagingFD
        self.areaFD = areaFD
        self.areaName = name
    }

    deinit {
        if !isFinished { discard() }
        syncs.cancel()
        if let parent { close(parent.fd) }
        close(areaFD)
        close(stagingFD)
        close(rootDirectoryFD)
    }

    /// Takes the area's lock, trying again for up to `wait`.
    private static func lock(_ fd: Int32, waiting wait: Duration) -> Bool {
        let deadline = ContinuousClock.now + wait
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK, ContinuousClock.now < deadline else { return false }
            usleep(50_000)
        }
        return true
    }

    private static func readMetadata(_ areaFD: Int32) -> PartialTransfer? {
        let fd = openat(areaFD, PartialStore.metadataName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while data.count < 16 << 20 {
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got <= 0 { break }
            data.append(contentsOf: buffer[..<got])
        }
        close(fd)
        return PartialStore.decode(data)
    }

    /// Records the partial transfer's metadata (now, and again when it is kept), replacing the
    /// previous record atomically.
    func saveMetadata(updatedAt: Date = Date()) {
        guard var partial else { return }
        partial.updatedAt = updatedAt
        self.partial = partial
        let temporary = PartialStore.metadataName + ".new"
        _ = unlinkat(areaFD, temporary, 0)
        guard (try? Self.writeNewFile(PartialStore.encode(partial), named: temporary, in: areaFD, mode: 0o600)) != nil else {
            return
        }
        _ = renameat(areaFD, temporary, areaFD, PartialStore.metadataName)
    }

    /// 16 random hex digits.
    static func randomName(bytes: Int = 8) -> String {
        SecureRandom.bytes(bytes).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// Bytes free for an unprivileged user on the inbox's filesystem.
    var availableBytes: UInt64 {
        var info = statvfs()
        guard fstatvfs(areaFD, &info) == 0 else { return .max }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    // MARK: Writing

    /// Creates the folders and links of `manifest` (files come later, as they arrive).
    func prepare(_ manifest: Manifest) throws(ReceiveError) {
        if isContinued { rollBackInterruptedCommit() }
        for entry in manifest.entries {
            switch entry.kind {
            case .directory:
                let (parentFD, name) = try parentDirectory(of: entry.path)
                if mkdirat(parentFD, name, 0o700) != 0 {
                    // A continued area has its folders already (never a link in their place).
                    var info = stat()
                    let kept =
                        isContinued && errno == EEXIST && fstatat(parentFD, name, &info, AT_SYMLINK_NOFOLLOW) == 0
                        && (info.st_mode & S_IFMT) == S_IFDIR
                    if !kept {
                        throw .storageFailed(operation: "creating the folder", path: entry.path, reason: POSIX.errorText())
                    }
                    _ = fchmodat(parentFD, name, 0o700, 0)
                }
            case .symlink:
                let (parentFD, name) = try parentDirectory(of: entry.path)
                if isContinued { _ = unlinkat(parentFD, name, 0) }
                if symlinkat(entry.linkTarget, parentFD, name) != 0 {
                    throw .storageFailed(operation: "creating the link", path: entry.path, reason: POSIX.errorText())
                }
            case .note:
                if isContinued {
                    let (parentFD, name) = try parentDirectory(of: entry.path)
                    _ = unlinkat(parentFD, name, 0)
                }
                let fd = try createFile(entry.path)
                if let problem = entry.content.withUnsafeBytes({ POSIX.writeAll(fd, $0) }) {
                    close(fd)
                    throw .storageFailed(operation: "writing", path: entry.path, reason: POSIX.errorText(problem))
                }
                try finishFile(fd, entry: entry)
            case .file:
                break
            }
        }
    }

    /// Whether this area's filesystem treats names that differ only in case as one name (ext4 with
    /// casefold, vfat): then it cannot hold both `Case.txt` and `case.txt`.
    func ignoresCase() -> Bool {
        let name = "CaseProbe-" + Self.randomName(bytes: 4)
        let fd = openat(areaFD, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        close(fd)
        defer { unlinkat(areaFD, name, 0) }
        return faccessat(areaFD, name.lowercased(), F_OK, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// What a continued area holds of each file of `manifest`: for every file with bytes on disk (at
    /// most its offered size), their count and the SHA-256 of them, read back from disk.
    func heldFiles(_ manifest: Manifest) -> [HeldFile] {
        guard isContinued else { return [] }
        var held: [HeldFile] = []
        for (index, entryIndex) in manifest.fileEntryIndices.enumerated() {
            let entry = manifest.entries[entryIndex]
            guard let (parentFD, name) = try? parentDirectory(of: entry.path) else { continue }
            let fd = openat(parentFD, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0,
                UInt64(info.st_size) <= entry.size
            else { continue }
            var hasher = SHA256()
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var total: UInt64 = 0
            while true {
                let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if got <= 0 { break }
                buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<got])) }
                total += UInt64(got)
            }
            guard total == UInt64(info.st_size) else { continue }
            held.append(HeldFile(fileIndex: index, offset: total, hasher: hasher))
        }
        return held
    }

    /// Opens the file of `entry` to continue it after its first `offset` bytes (a continued area;
    /// anything beyond is cut off), or creates it afresh when `offset` is 0. `hasFinalMode` says
    /// whether the file already has the mode ``finishFile(_:entry:hasFinalMode:)`` would give it.
    func openFile(_ entry: ManifestEntry, at offset: UInt64) throws(ReceiveError) -> (fd: Int32, hasFinalMode: Bool) {
        let path = entry.path
        let (parentFD, name) = try parentDirectory(of: path)
        if offset == 0 {
            if isContinued { _ = unlinkat(parentFD, name, 0) }
            let (mode, isFinal) = creationMode(of: entry)
            return (try createFile(path, mode: mode), isFinal)
        }
        _ = fchmodat(parentFD, name, 0o600, 0)
        let fd = openat(parentFD, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw .storageFailed(operation: "reopening", path: path, reason: POSIX.errorText())
        }
        guard ftruncate(fd, off_t(offset)) == 0, lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else {
            let reason = POSIX.errorText()
            close(fd)
            throw .storageFailed(operation: "continuing", path: path, reason: reason)
        }
        return (fd, false)
    }

    /// The mode a received file of `entry` is created with, and whether that is its final mode.
    ///
    /// A file is created with its final mode (``ReceivedModes``) when the process's umask clears
    /// none of its bits, so it is exactly that mode and finishing it needs no `fchmod`: one system
    /// call less per file (10,000 for a tree of 10,000 small files). The final mode always lets the
    /// owner read the file (a continued transfer hashes what it holds), and a read-only one is still
    /// written through the descriptor that created it (a continued transfer makes it 0600 again
    /// before it reopens it). The staging area is 0700, so nobody else sees a file before its commit.
    /// Otherwise it is created 0600 and given its mode when complete, as before.
    func creationMode(of entry: ManifestEntry) -> (mode: mode_t, isFinal: Bool) {
        let mode = ReceivedModes.file(
            entry.mode, inBundle: !entry.isTopLevel, executableBits: executableBits, umask: umask)
        guard mode & ReceiverConfiguration.processUmask == 0 else { return (0o600, false) }
        return (mode_t(mode), true)
    }

    /// Creates the file at `path` (it must not exist) with `mode` (less the process's umask) and
    /// returns its descriptor.
    func createFile(_ path: String, mode: mode_t = 0o600) throws(ReceiveError) -> Int32 {
        // The parent was opened beneath the area without following links (and is reused for the
        // files that follow in the same folder); the name is one validated component, created
        // exclusively without following a link.
        let (parentFD, name) = try parentDirectory(of: path)
        let fd = openat(parentFD, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else {
            throw .storageFailed(operation: "creating", path: path, reason: POSIX.errorText())
        }
        return fd
    }

    /// Gives a finished file its mode (``ReceivedModes``) and modification time and closes it.
    ///
    /// Its writeback is not started here (only every 16 MiB of a large file, ``FileWriter``): for
    /// small files that moved the kernel's block allocation and request submission onto this, the
    /// busiest, thread (the tree's receiver CPU went from 0.9 to 1.5 s), while `syncfs` has the
    /// kernel's flusher do it, and on a busy disk the commit's `fsync`s do it on several threads.
    ///
    /// `hasFinalMode`: the file was created with its mode (``creationMode(of:)``), so only its time
    /// is set.
    func finishFile(_ fd: Int32, entry: ManifestEntry, hasFinalMode: Bool = false) throws(ReceiveError) {
        defer { close(fd) }
        var times = POSIX.times(seconds: entry.modificationSeconds, nanoseconds: entry.modificationNanoseconds)
        let mode = ReceivedModes.file(entry.mode, inBundle: !entry.isTopLevel, executableBits: executableBits, umask: umask)
        if (!hasFinalMode && fchmod(fd, mode_t(mode)) != 0) || futimens(fd, &times) != 0 {
            throw .storageFailed(operation: "setting the mode and time of", path: entry.path, reason: POSIX.errorText())
        }
        finishedBytes += entry.kind == .note ? UInt64(entry.content.count) : entry.size
    }

    // MARK: Committing

    /// Makes everything durable and renames each item into a new inbox entry of its own, with
    /// its metadata, without replacing anything. Returns the entries, in manifest order, with their
    /// identifiers.
    ///
    /// Each item first moves into `.share-entry-<n>/` inside the area next to its
    /// `.share-entry.json` (names starting with `.share-` are never received, so nothing collides);
    /// everything is made durable (``chooseSyncMethod()``: one `syncfs`, or, while other programs
    /// have much unwritten data, an `fsync` of every received file and folder, each entry folder and
    /// its metadata and the area); then each entry folder is renamed into the inbox with
    /// `renameat2(RENAME_NOREPLACE)` under a fresh random identifier, and the inbox is synced: an
    /// entry appears whole or not at all. A bundle's own folder stays 0700 (so it can be moved out
    /// again); its mode and time travel in the metadata and are applied where it finally lands.
    ///
    /// A resumable transfer has a decision point between the sync and the renames: its
    /// ``CompletedOffer`` (with `digests`, the files' SHA-256 one after another, and the entries' identifiers) is
    /// written durably. Killed before it, the area is still a partial transfer (the next
    /// ``prepare(_:)`` moves the items back); killed after it, the offer is delivered, and the
    /// renames left are done by ``finishCommit(_:)`` (docs/PROTOCOL.md §10).
    func commit(
        _ manifest: Manifest, entries: [InboxEntry], digests: [UInt8] = []
    ) throws(ReceiveError) -> [InboxEntry] {
        // Folder and link times (and folder modes) last, deepest first: reverse pre-order.
        for entry in manifest.entries.reversed() where !entry.kind.isRegularFile && !entry.isTopLevel {
            let (parentFD, name) = try parentDirectory(of: entry.path)
            var times = POSIX.times(seconds: entry.modificationSeconds, nanoseconds: entry.modificationNanoseconds)
            let mode = ReceivedModes.directory(entry.mode, umask: umask)
            if entry.kind == .directory && fchmodat(parentFD, name, mode_t(mode), 0) != 0 {
                throw .storageFailed(operation: "setting the mode of", path: entry.path, reason: POSIX.errorText())
            }
            _ = utimensat(parentFD, name, &times, AT_SYMLINK_NOFOLLOW)
        }
        let method = chooseSyncMethod()
        syncMethod = method
        // Syncing its own: the files are handed to the sync threads now, the folders are opened now (the descriptors follow the moves)
        // and synced after the moves (a moved folder's `..` changes).
        var folders: [SyncQueue.Item] = []
        defer { for folder in folders { close(folder.fd) } }
        var unopened = false
        if method == .ownFiles {
            syncParentsOnce(of: root)
            for entry in manifest.entries {
                let (parentFD, name) = try parentDirectory(of: entry.path)
                switch entry.kind {
                case .directory:
                    let fd = openat(parentFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    guard fd >= 0 else {
                        throw .storageFailed(operation: "opening the folder", path: entry.path, reason: POSIX.errorText())
                    }
                    folders.append(SyncQueue.Item(fd: fd, path: entry.path))
                case .file, .note:
                    // The owner can always read a received file (``ReceivedModes``); one that
                    // cannot be opened anyway is left to a `syncfs` at the end.
                    let fd = openat(parentFD, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                    if fd >= 0 { syncs.add(fd, path: entry.path) } else { unopened = true }
                case .symlink:
                    break  // its folder's sync makes it durable
                }
            }
        }
        if let parent {
            close(parent.fd)
            self.parent = nil
        }
        var committed: [InboxEntry] = []
        for (index, item) in manifest.items.enumerated() {
            let folder = Self.entryFolderPrefix + String(index)
            guard mkdirat(areaFD, folder, 0o700) == 0 else {
                throw .storageFailed(operation: "creating the inbox entry for", path: item.name, reason: POSIX.errorText())
            }
            let folderFD = openat(areaFD, folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folderFD >= 0 else {
                throw .storageFailed(operation: "opening the inbox entry for", path: item.name, reason: POSIX.errorText())
            }
            folders.append(SyncQueue.Item(fd: folderFD, path: folder))
            if LinuxCalls.renameWithoutReplacing(areaFD, item.name, to: folderFD, item.name) != 0 {
                throw .storageFailed(operation: "moving into its inbox entry", path: item.name, reason: POSIX.errorText())
            }
            var metadata = index < entries.count ? entries[index] : InboxEntry.damaged(id: "")
            let top = manifest.entries[item.entryRange.lowerBound]
            if top.kind == .directory {
                metadata.folderMode = ReceivedModes.directory(top.mode, umask: umask)
                metadata.folderModificationSeconds = top.modificationSeconds
                metadata.folderModificationNanoseconds = top.modificationNanoseconds
            }
            let metadataFD = try Self.createNewFile(
                Inbox.encode(metadata), named: Inbox.metadataName, in: folderFD, mode: 0o600)
            if method == .ownFiles {
                syncs.add(metadataFD, path: folder + "/" + Inbox.metadataName)
            } else {
                close(metadataFD)
            }
            metadata.id = freeEntryID()
            committed.append(metadata)
        }
        if partial == nil { _ = unlinkat(areaFD, PartialStore.metadataName, 0) }
        if method == .ownFiles {
            let areaCopy = dup(areaFD)
            if areaCopy >= 0 { folders.append(SyncQueue.Item(fd: areaCopy, path: ".")) } else { unopened = true }
            let handed = folders
            folders = []
            for folder in handed { syncs.add(folder.fd, path: folder.path) }
            if let failure = syncs.finish() { throw failure }
        }
        if method == .filesystem || unopened {
            if LinuxCalls.syncFilesystem(areaFD) != 0 {
                throw .storageFailed(operation: "syncing", path: root, reason: POSIX.errorText())
            }
            syncs.record("syncfs")
        }
        var record: CompletedOffer?
        if let partial {
            TestPause.at("commit")
            // The decision point.
            let completed = CompletedOffer(
                senderFingerprint: partial.senderFingerprint, offerID: partial.offerID, completedAt: Date(),
                fileDigests: stride(from: 0, to: digests.count, by: VerifiedFiles.digestSize).map {
                    Hex.encode(Array(digests[$0..<($0 + VerifiedFiles.digestSize)]))
                },
                entryIDs: committed.map(\.id))
            try store.save(completed, id: partial.id)
            record = completed
            TestPause.at("committed")
        }
        for index in committed.indices {
            let folder = Self.entryFolderPrefix + String(index)
            committed[index].id = try publish(folder, as: committed[index].id, record: &record)
        }
        syncs.sync(rootDirectoryFD, path: root)
        if let failure = syncs.finish() { throw failure }
        _ = unlinkat(areaFD, PartialStore.metadataName, 0)
        finish()
        return committed
    }

    /// How to make this commit durable: its own files and folders when other programs have at
    /// least ``busyDiskBytes`` unwritten (then one `syncfs` would wait for all of it), otherwise one
    /// `syncfs`. Others' share is the system's `Dirty` + `Writeback` less what this area wrote (an
    /// upper bound of its own still unwritten data, so others' share is never overestimated and the
    /// cheap way is never given up for this transfer's own data).
    func chooseSyncMethod(unwritten: UInt64? = UnwrittenData.systemBytes()) -> SyncMethod {
        if busyDiskBytes == 0 { return .ownFiles }
        guard let unwritten else { return .filesystem }
        let others = unwritten - min(unwritten, finishedBytes)
        return others >= busyDiskBytes ? .ownFiles : .filesystem
    }

    /// Hands every folder above the inbox `path` to ``syncs``, once per inbox and process, with the
    /// transfer's own files (they do not depend on each other): the inbox may have been created
    /// just now, and its entry in the folder above must last too (one `syncfs` covers that;
    /// syncing only the transfer's own files does not). Best effort: a folder above that cannot be
    /// synced does not fail the transfer.
    private func syncParentsOnce(of path: String) {
        guard Self.syncedInboxes.withLock({ $0.insert(path).inserted }) else { return }
        var folder = URL(fileURLWithPath: path).standardizedFileURL
        while folder.path != "/" {
            folder.deleteLastPathComponent()
            let fd = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if fd >= 0 { syncs.add(fd, path: folder.path, mayFail: true) }
        }
    }

    /// The names of entry folders in the area: `.share-entry-<n>`.
    private static let entryFolderPrefix = ".share-entry-"

    /// The partial store this area belongs to.
    private var store: PartialStore { PartialStore(inbox: root) }

    /// Finishes a commit that passed its decision point (`record`) but was interrupted before every
    /// entry was renamed into the inbox: renames the rest, then removes the area.
    func finishCommit(_ record: CompletedOffer) {
        var record: CompletedOffer? = record
        for name in POSIX.directoryNames(consuming: dup(areaFD)) ?? [] where name.hasPrefix(Self.entryFolderPrefix) {
            guard let index = Int(name.dropFirst(Self.entryFolderPrefix.count)), let ids = record?.entryIDs,
                index >= 0, index < ids.count
            else { continue }
            _ = try? publish(name, as: ids[index], record: &record)
        }
        _ = fsync(rootDirectoryFD)
        discard()
    }

    /// Moves the items of a commit interrupted before its decision point back to where they were
    /// received, so the continued transfer finds them (and commits them again).
    private func rollBackInterruptedCommit() {
        for name in POSIX.directoryNames(consuming: dup(areaFD)) ?? [] where name.hasPrefix(Self.entryFolderPrefix) {
            let folderFD = openat(areaFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folderFD >= 0 else { continue }
            for item in POSIX.directoryNames(consuming: dup(folderFD)) ?? [] where item != Inbox.metadataName {
                _ = LinuxCalls.renameWithoutReplacing(folderFD, item, to: areaFD, item)
            }
            close(folderFD)
            POSIX.removeTree(parent: areaFD, name: name)
        }
    }

    /// An identifier no inbox entry has now.
    private func freeEntryID() -> String {
        var id = Self.randomName(bytes: 4)
        while faccessat(rootDirectoryFD, id, F_OK, AT_SYMLINK_NOFOLLOW) == 0 { id = Self.randomName(bytes: 4) }
        return id
    }

    /// Renames a staged entry folder into the inbox as `id`, or, when another entry took that
    /// identifier meanwhile, under a new one (updating the completion `record`).
    private func publish(
        _ folder: String, as id: String, record: inout CompletedOffer?
    ) throws(ReceiveError) -> String {
        var id = id
        for _ in 0..<100 {
            if LinuxCalls.renameWithoutReplacing(areaFD, folder, to: rootDirectoryFD, id) == 0 { return id }
            guard errno == EEXIST else {
                throw .storageFailed(operation: "moving into the inbox", path: root + "/" + id, reason: POSIX.errorText())
            }
            let taken = id
            id = freeEntryID()
            if var changed = record, let partial, let index = changed.entryIDs.firstIndex(of: taken) {
                changed.entryIDs[index] = id
                try store.save(changed, id: partial.id)
                record = changed
            }
        }
        throw .storageFailed(operation: "choosing an identifier in", path: root, reason: "every identifier tried was taken")
    }

    /// Creates `name` in the folder `directoryFD` (it must not exist) with `data`.
    static func writeNewFile(_ data: Data, named name: String, in directoryFD: Int32, mode: mode_t) throws(ReceiveError) {
        close(try createNewFile(data, named: name, in: directoryFD, mode: mode))
    }

    /// Creates `name` in the folder `directoryFD` (it must not exist) with `data`, and returns its
    /// descriptor, still open.
    static func createNewFile(
        _ data: Data, named name: String, in directoryFD: Int32, mode: mode_t
    ) throws(ReceiveError) -> Int32 {
        let fd = openat(directoryFD, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .storageFailed(operation: "creating", path: name, reason: POSIX.errorText()) }
        if let problem = data.withUnsafeBytes({ POSIX.writeAll(fd, $0) }) {
            close(fd)
            throw .storageFailed(operation: "writing", path: name, reason: POSIX.errorText(problem))
        }
        return fd
    }

    /// Keeps what was written as a partial transfer (when the area is resumable; otherwise it is
    /// discarded): its metadata is brought up to date and the lock released.
    func keep() {
        guard !isFinished else { return }
        guard partial != nil else { return discard() }
        syncs.cancel()
        if let parent {
            close(parent.fd)
            self.parent = nil
        }
        saveMetadata()
        isFinished = true
    }

    /// Deletes everything written so far. Safe to call more than once.
    func discard() {
        guard !isFinished else { return }
        syncs.cancel()
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
        _ = unlinkat(stagingFD, areaName, AT_REMOVEDIR)
        // Leaves `.share-staging` only while another transfer uses it.
        _ = unlinkat(rootDirectoryFD, Self.folderName, AT_REMOVEDIR)
    }

    private func parentDirectory(of path: String) throws(ReceiveError) -> (Int32, String) {
        // Split on the `/` scalar, as the kernel does (a `/` followed by a combining mark is one
        // Character, and Character-based searches would miss it).
        guard let slash = path.unicodeScalars.lastIndex(of: "/") else { return (areaFD, path) }
        let parentPath = String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        if let parent, parent.path == parentPath { return (parent.fd, name) }
        let fd = LinuxCalls.openBeneath(areaFD, parentPath, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw .storageFailed(operation: "opening the folder", path: parentPath, reason: POSIX.errorText())
        }
        if let parent { close(parent.fd) }
        parent = (parentPath, fd)
        return (fd, name)
    }

    // MARK: Housekeeping

    /// Deletes staging areas in `destination` (an inbox, or a folder imports copy into) that no
    /// running transfer holds.
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
                // Partial transfers stay (``PartialStore`` expires them); everything else goes.
                let partial = name.hasPrefix(PartialStore.prefix) ? readMetadata(fd) : nil
                if partial?.id != name { POSIX.removeTree(parent: rootFD, name: name) }
            }
            close(fd)
        }
        _ = unlinkat(destinationFD, folderName, AT_REMOVEDIR)
    }

    /// Creates `path` and its missing parents (with `mode`).
    static func createDirectories(_ path: String, mode: mode_t = 0o755) throws(ReceiveError) {
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
            if mkdir(current, mode) != 0 && errno != EEXIST {
                throw .destinationUnusable(path: path, reason: POSIX.errorText())
            }
        }
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .destinationUnusable(path: path, reason: "it is not a folder")
        }
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
