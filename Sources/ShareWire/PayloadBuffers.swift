import Synchronization

/// Arrays for DATA payloads that a receiver gives back once it wrote them, so that each chunk is
/// decoded into memory used before instead of a fresh allocation.
///
/// A payload of 1 MiB is above the size for which glibc's malloc maps fresh pages (a receiver sets
/// that threshold so freed chunks go back to the system at once): every new array cost 256 page
/// faults, each clearing a page, and an unmap when it was freed, ~12 % of a receiver's CPU for a
/// large file (docs/PERFORMANCE.md, "Where the time goes"). Refilling an array that was given back
/// costs one copy, which the decoder makes anyway.
///
/// At most ``limit`` arrays wait here, so what a connection keeps between chunks is bounded; an array
/// still referenced elsewhere when it is refilled is copied first (arrays are values), so reuse can
/// never change bytes someone still holds.
public final class PayloadBuffers: Sendable {
    private let spare = Mutex<[[UInt8]]>([])
    /// How many arrays may wait for reuse.
    public let limit: Int

    /// A pool that keeps at most `limit` arrays.
    public init(limit: Int = 1) {
        self.limit = limit
    }

    /// An array holding `bytes`: one given back, refilled, or a new one.
    func array(holding bytes: ArraySlice<UInt8>) -> [UInt8] {
        guard var array = spare.withLock({ $0.popLast() }) else { return Array(bytes) }
        array.removeAll(keepingCapacity: true)
        array.append(contentsOf: bytes)
        return array
    }

    /// An array of `count` bytes to read a payload into (what it holds is to be overwritten): one
    /// given back, resized, or a new one.
    func array(count: Int) -> [UInt8] {
        guard var array = spare.withLock({ $0.popLast() }) else { return [UInt8](repeating: 0, count: count) }
        if array.count > count {
            array.removeLast(array.count - count)
        } else if array.count < count {
            array.append(contentsOf: repeatElement(0, count: count - array.count))
        }
        return array
    }

    /// Gives `array` back for a later payload (dropped when ``limit`` arrays already wait, or when it
    /// is smaller than a full payload and so would be reallocated anyway).
    public func giveBack(_ array: [UInt8]) {
        guard array.capacity >= FrameType.maxDataBytes else { return }
        spare.withLock { spare in
            if spare.count < limit { spare.append(array) }
        }
    }

    /// How many arrays wait for reuse.
    public var waiting: Int { spare.withLock { $0.count } }
}
