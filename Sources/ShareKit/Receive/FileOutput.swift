import ShareSystem

#if canImport(Glibc)
import Glibc
#endif

/// How the receiver's disk thread writes the bytes of one file: a large file straight to the device
/// (O_DIRECT) through an aligned buffer, anything else through the page cache.
///
/// A buffered `write` copies every byte into the page cache, and on a machine whose page-cache
/// pages are costly to get (a virtual machine that hands freed memory back to its host) that copy
/// was the largest single cost of receiving a big file: 35-40 % of the receiver's CPU, 0.5-3 CPU-s
/// per GiB (docs/PERFORMANCE.md, "Where the time goes"). Written directly, the bytes go from this
/// buffer to the disk with no copy and no dirty pages for the commit's sync to wait for. The buffer
/// is the one copy the direct path needs (O_DIRECT wants aligned memory, offsets and lengths; the
/// arrays that arrive are not aligned), made into memory that stays resident while the transfer
/// lasts.
///
/// A file is written directly when it is at least ``directMinimum`` long, starts at an aligned
/// offset and the filesystem accepts O_DIRECT; its last bytes (after the last whole block) are
/// written through the page cache. Whenever a direct write is refused the file continues through
/// the page cache, from the same bytes, so the result never depends on the path. Either way
/// nothing is durable until the commit's `syncfs` or `fsync`, as before.
///
/// Used by the disk thread only.
struct FileOutput: ~Copyable {
    /// Files shorter than this go through the page cache: many small files cost their creation,
    /// not their bytes, and a block-sized tail for each would cost a second write.
    static let directMinimum: UInt64 = 8 << 20
    /// Bytes collected before each direct write: half a DATA chunk, so a receiver writing many
    /// large files at once (one buffer per transfer) holds little more than before.
    static let bufferSize = 512 << 10

    /// The aligned buffer, made when the first file is written directly.
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var fd: Int32 = -1
    /// Whether the file's writes go straight to the device now.
    private var direct = false
    /// Bytes collected in ``buffer``, not yet written.
    private var filled = 0
    /// Where in the file the next byte written to the descriptor goes.
    private var written: Int64 = 0
    /// Bytes since the last kernel writeback was started (page-cache writes only).
    private var unflushed: Int64 = 0

    init() {}

    deinit { buffer.deallocate() }

    /// Starts writing the file open at `fd`, `size` bytes long, at `offset` (where the descriptor
    /// stands).
    mutating func open(_ fd: Int32, size: UInt64, offset: UInt64) {
        self.fd = fd
        filled = 0
        written = Int64(offset)
        unflushed = 0
        direct =
            size >= Self.directMinimum && offset % UInt64(LinuxCalls.directAlignment) == 0
            && LinuxCalls.setDirectIO(fd, true) == 0
        if direct && buffer.baseAddress == nil {
            buffer = .allocate(byteCount: Self.bufferSize, alignment: LinuxCalls.directAlignment)
        }
    }

    /// Writes (or collects) `bytes`; the error number of a failed write.
    mutating func write(_ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard direct else { return writeThroughCache(bytes) }
        var rest = bytes
        while !rest.isEmpty {
            let count = min(rest.count, Self.bufferSize - filled)
            (buffer.baseAddress! + filled).copyMemory(from: rest.baseAddress!, byteCount: count)
            filled += count
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
            if filled == Self.bufferSize, let problem = writeCollected() { return problem }
        }
        return nil
    }

    /// Writes what is still collected: the whole blocks directly, the rest through the page cache.
    /// Call before the descriptor is synced or closed; the error number of a failed write.
    mutating func finish() -> Int32? {
        defer { fd = -1 }
        guard fd >= 0, filled > 0 else { return nil }
        return writeCollected()
    }

    /// Writes the collected bytes: directly as far as they fill whole blocks, the rest (a file's
    /// end, or everything once the filesystem refused a direct write) through the page cache.
    private mutating func writeCollected() -> Int32? {
        let alignment = LinuxCalls.directAlignment
        let whole = filled / alignment * alignment
        var done = 0
        if direct, whole > 0 {
            if let problem = POSIX.writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[..<whole])) {
                guard problem == EINVAL, LinuxCalls.setDirectIO(fd, false) == 0 else { return problem }
                direct = false
            } else {
                done = whole
                written += Int64(whole)
            }
        }
        if done < filled {
            if direct {
                direct = false
                guard LinuxCalls.setDirectIO(fd, false) == 0 else { return errno }
            }
            if let problem = writeThroughCache(UnsafeRawBufferPointer(rebasing: buffer[done..<filled])) {
                return problem
            }
        }
        filled = 0
        return nil
    }

    /// A `write` through the page cache, starting the kernel's writeback every
    /// ``FileWriter/writebackInterval`` bytes so the final sync has little left.
    private mutating func writeThroughCache(_ bytes: UnsafeRawBufferPointer) -> Int32? {
        if let problem = POSIX.writeAll(fd, bytes) { return problem }
        written += Int64(bytes.count)
        unflushed += Int64(bytes.count)
        if unflushed >= FileWriter.writebackInterval {
            _ = LinuxCalls.startWriteback(fd, offset: written - unflushed, length: unflushed)
            unflushed = 0
        }
        return nil
    }
}
