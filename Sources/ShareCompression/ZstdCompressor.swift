internal import CShareZstd
import Synchronization

/// Compresses buffers into single zstd frames (RFC 8878), one call at a time; owns one
/// `ZSTD_CCtx`, reused from call to call, and frees it in deinit.
///
/// Every frame declares its content size and has no checksum (the transfer's SHA-256 digests and
/// TLS already protect the bytes). Calls from several threads are serialized.
public final class ZstdCompressor: Sendable {
    /// The levels libzstd accepts: negative levels are faster than 1 and compress less; 0 means
    /// libzstd's default (3).
    public static let levels: ClosedRange<Int> = Int(ZSTD_minCLevel())...Int(ZSTD_maxCLevel())

    /// `@unchecked Sendable`: only the holder of the mutex around it touches the context and the buffer.
    private struct State: @unchecked Sendable {
        let context: OpaquePointer
        /// Where frames are built before they are copied into an array of their own size.
        var scratch: UnsafeMutableRawBufferPointer
        var level: Int?
    }

    private let state: Mutex<State>

    /// Creates a compressor (libzstd allocates its tables at the first call).
    public init() {
        guard let context = ZSTD_createCCtx() else { fatalError("out of memory: ZSTD_createCCtx failed") }
        _ = ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 0)
        _ = ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 1)
        state = Mutex(State(context: context, scratch: UnsafeMutableRawBufferPointer(start: nil, count: 0)))
    }

    deinit {
        state.withLock { state in
            ZSTD_freeCCtx(state.context)
            state.scratch.deallocate()
        }
    }

    /// One zstd frame that decompresses to `input`, compressed at `level`, if it takes at most
    /// `limit` bytes.
    /// - Parameters:
    ///   - input: the bytes (at least one).
    ///   - level: a level of ``levels`` (clamped to it).
    ///   - limit: the largest frame wanted; nil for no limit.
    /// - Returns: the frame; nil when it would be larger than `limit` (the input does not compress
    ///   enough) or libzstd failed, in both cases a reason to send the bytes as they are. The
    ///   corresponding C function is `ZSTD_compress2`.
    public func compress(_ input: UnsafeRawBufferPointer, level: Int, limit: Int? = nil) -> [UInt8]? {
        guard input.count > 0, let base = input.baseAddress else { return nil }
        let bound = ZSTD_compressBound(input.count)
        guard ZSTD_isError(bound) == 0 else { return nil }
        let capacity = min(Int(bound), limit ?? Int.max)
        guard capacity > 0 else { return nil }
        return state.withLock { state -> [UInt8]? in
            let wanted = Self.levels.contains(level) ? level : min(max(level, Self.levels.lowerBound), Self.levels.upperBound)
            if state.level != wanted {
                guard ZSTD_isError(ZSTD_CCtx_setParameter(state.context, ZSTD_c_compressionLevel, Int32(wanted))) == 0
                else { return nil }
                state.level = wanted
            }
            if state.scratch.count < capacity {
                state.scratch.deallocate()
                state.scratch = .allocate(byteCount: capacity, alignment: 16)
            }
            let size = ZSTD_compress2(state.context, state.scratch.baseAddress, capacity, base, input.count)
            guard ZSTD_isError(size) == 0 else {
                // A failed call may leave the frame half-built; the next one must start afresh.
                _ = ZSTD_CCtx_reset(state.context, ZSTD_reset_session_only)
                return nil
            }
            return [UInt8](UnsafeRawBufferPointer(rebasing: state.scratch[..<Int(size)]))
        }
    }

    /// One zstd frame that decompresses to `input`; see ``compress(_:level:limit:)-(UnsafeRawBufferPointer,_,_)``.
    public func compress(_ input: [UInt8], level: Int, limit: Int? = nil) -> [UInt8]? {
        input.withUnsafeBytes { compress($0, level: level, limit: limit) }
    }

    /// The memory the compressor holds now (its libzstd context and its scratch buffer), in bytes.
    /// The corresponding C function is `ZSTD_sizeof_CCtx`.
    public var memoryBytes: Int {
        state.withLock { Int(ZSTD_sizeof_CCtx($0.context)) + $0.scratch.count }
    }
}
