import ShareDocuments
import ShareTLS
import ShareWire

/// Where one connection's file bytes come from, in order: from a ``SharedSource`` while it is in
/// the group, else from its own reads of the files (checked against what the receiver holds).
/// Switches between the two only between chunks, keeping the file's hash over the bytes this
/// connection sends.
struct SourceCursor {
    /// One step of this connection's stream of raw file bytes.
    enum Step {
        case data(fileIndex: Int, offset: UInt64, bytes: [UInt8], readTime: Duration)
        case resumed(fileIndex: Int, offset: UInt64)
        case end(fileIndex: Int, sha256: [UInt8])
        case failure(String)
    }

    private let prepared: PreparedSend
    private let have: [Int: HaveRecord]
    private let shared: SharedSource?
    /// Told when the cursor joins the group (its number) or leaves it (nil).
    private let membershipChanged: (Int?) -> Void
    /// The file this connection is in, how far, and the hash of its bytes so far.
    private var fileIndex = 0
    private var offset: UInt64 = 0
    private var hasher = SHA256()
    /// The open file while reading on its own.
    private var file: SourceFile?
    /// Hashes the current file on a thread of its own (a large file read on its own), instead of
    /// `hasher`.
    private var lane: HashLane?
    /// Whether the current file was checked against what the receiver holds (and opened).
    private var started = false
    /// This connection's number in the group, while it is in it, and the steps it took but did not use yet.
    private var member: Int?
    /// Taken from the group and not used yet, last first.
    private var pending: [SharedSource.Step] = []
    private var failed = false

    /// A cursor over `prepared`, continuing each file the receiver holds part of (`have`) on its
    /// own reads, and in `shared`'s group wherever it can; `membershipChanged` is told its number
    /// in the group when it joins, nil when it leaves.
    init(
        _ prepared: PreparedSend, have: [Int: HaveRecord], shared: SharedSource?,
        membershipChanged: @escaping (Int?) -> Void = { _ in }
    ) {
        self.prepared = prepared
        self.have = have
        self.shared = shared
        self.membershipChanged = membershipChanged
    }

    /// Whether this connection takes its bytes from the group now.
    var inGroup: Bool { member != nil }

    /// Leaves the group (the connection is done or gave up).
    mutating func leave() {
        if let member { shared?.leave(member) }
        member = nil
        membershipChanged(nil)
    }

    /// The next step; nil after the last file (or after a failure).
    mutating func next() -> Step? {
        while !failed && fileIndex < prepared.manifest.fileEntryIndices.count {
            if let step = nextFromGroup() { return step }
            if member != nil { continue }
            if let step = nextOnItsOwn() { return step }
        }
        return nil
    }

    private mutating func nextFromGroup() -> Step? {
        guard let shared, let id = member else { return nil }
        if pending.isEmpty {
            switch shared.take(id) {
            case .steps(let steps):
                pending = steps.reversed()
            case .detached, .finished:
                // Out of the window: on its own from here (the hash so far is the group's, over the same bytes).
                member = nil
                membershipChanged(nil)
                return nil
            }
        }
        guard let step = pending.popLast() else { return nil }
        precondition(step.fileIndex == fileIndex && step.startOffset == offset, "the group's stream is out of step")
        switch step {
        case .data(let index, let at, let bytes, _, let hashed, let readTime):
            hasher = hashed
            offset += UInt64(bytes.count)
            return .data(fileIndex: index, offset: at, bytes: bytes, readTime: readTime)
        case .end(let index, _, _, let digest):
            nextFile()
            return .end(fileIndex: index, sha256: digest)
        case .failure(_, _, let message):
            failed = true
            return .failure(message)
        }
    }

    private mutating func nextOnItsOwn() -> Step? {
        if !started {
            started = true
            if let step = openFile() { return step }
        }
        if let shared, let id = shared.join(fileIndex: fileIndex, offset: offset, hashed: hasher) {
            member = id
            membershipChanged(id)
            file = nil
            return nil
        }
        if file == nil {
            switch SourceFile.open(prepared, index: fileIndex, midway: offset > 0) {
            case .success(let opened): file = opened
            case .failure(let failure): return fail(failure)
            }
            if offset > 0, let failure = file?.skip(offset) { return fail(failure) }
        }
        guard let file else { return nil }
        if offset < file.size {
            // Chunks end where the group's do, so a connection that resumed can join it again.
            let count = Int(
                min(file.size - offset, UInt64(FileReader.chunkSize) - offset % UInt64(FileReader.chunkSize)))
            // Outside a group (whose steps carry the hash so far), a file with 8 MiB or more still
            // to read is hashed on a lane from here on (continued files too).
            if lane == nil && shared == nil && file.size - offset >= HashLane.minimumFileBytes {
                lane = HashLane(continuing: hasher, name: "share.hash")
            }
            let started = ContinuousClock.now
            switch file.read(count) {
            case .success(let bytes):
                shared?.countRead(count)
                if let lane { lane.update(bytes) } else { bytes.withUnsafeBytes { hasher.update($0) } }
                let at = offset
                offset += UInt64(count)
                return .data(fileIndex: fileIndex, offset: at, bytes: bytes, readTime: .now - started)
            case .failure(let failure):
                return fail(failure)
            }
        }
        if let failure = file.changed() { return fail(failure) }
        let index = fileIndex
        let digest = lane?.finalize() ?? hasher.finalize()
        nextFile()
        return .end(fileIndex: index, sha256: digest)
    }

    /// Opens the current file when the receiver holds part of it, and continues after that part
    /// if it is this file's beginning (docs/PROTOCOL.md §7); else the file starts over.
    private mutating func openFile() -> Step? {
        guard let record = have[fileIndex], record.offset > 0 else { return nil }
        let opened: SourceFile
        switch SourceFile.open(prepared, index: fileIndex) {
        case .success(let file): opened = file
        case .failure(let failure): return fail(failure)
        }
        file = opened
        switch opened.hashPrefix(record.offset) {
        case .failure(let failure): return fail(failure)
        case .success(let prefix):
            shared?.countRead(Int(record.offset))
            if prefix.finalizedCopy == record.sha256 {
                hasher = prefix
                offset = record.offset
                return .resumed(fileIndex: fileIndex, offset: offset)
            }
            if let failure = opened.rewind() { return fail(failure) }
            return nil
        }
    }

    private mutating func nextFile() {
        fileIndex += 1
        offset = 0
        hasher = SHA256()
        file = nil
        lane = nil
        started = false
    }

    private mutating func fail(_ failure: SourceFailure) -> Step {
        failed = true
        file = nil
        lane = nil
        return .failure(failure.message)
    }
}
