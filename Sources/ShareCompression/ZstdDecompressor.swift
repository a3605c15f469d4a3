internal import CShareZstd
import Synchronization

/// Decompresses single zstd frames (RFC 8878) into buffers of a size known in advance; owns one
/// `ZSTD_DCtx`, reused from call to call, and frees it in deinit.
///
/// Made for input from the network: a frame is decompressed only into a buffer of the size the
/// caller expects, and refused (``ZstdFrameError``) unless it is one complete current-format zstd
/// frame that declares no other content size and decompresses to exactly that size. Decompression
/// is one-shot into that buffer, which is also the frame's window, so libzstd allocates nothing
/// for the window whatever the frame header asks for: memory stays the context (about 100 KiB)
/// plus the expected size. Calls from several threads are serialized.
public final class ZstdDecompressor: Sendable {
    /// The window limit set on the context (2^20 = 1 MiB, the largest DATA chunk): what a
    /// streaming decoder would allow. One-shot decompression never allocates a window, so a frame
    /// declaring a larger one still decodes, bounded by the expected size.
    public static let windowLogMax = 20

    /// `@unchecked Sendable`: only the holder of the mutex around it touches the context.
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private let context: Mutex<Context>

    /// Creates a decompressor.
    public init() {
        guard let context = ZSTD_createDCtx() else { fatalError("out of memory: ZSTD_createDCtx failed") }
        _ = ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, Int32(Self.windowLogMax))
        self.context = Mutex(Context(pointer: context))
    }

    deinit {
        context.withLock { _ = ZSTD_freeDCtx($0.pointer) }
    }

    /// The bytes the zstd frame `frame` stands for, which must be exactly `expectedLength` bytes.
    ///
    /// Checks, in order, before anything is decompressed: the frame starts with the zstd magic
    /// number (no skippable or legacy frames), its header declares `expectedLength` bytes or no
    /// size, and the input is one whole frame with nothing after it. Then it decompresses into
    /// `expectedLength` bytes and refuses a result of any other length. The corresponding C
    /// functions are `ZSTD_getFrameContentSize`, `ZSTD_findFrameCompressedSize` and
    /// `ZSTD_decompressDCtx`.
    /// - Parameters:
    ///   - frame: the compressed bytes.
    ///   - expectedLength: the number of bytes it must decompress to (at least 1).
    /// - Throws: ``ZstdFrameError`` saying what is wrong with the frame.
    public func decompress(_ frame: UnsafeRawBufferPointer, expectedLength: Int) throws(ZstdFrameError) -> [UInt8] {
        precondition(expectedLength > 0, "a zstd frame must stand for at least one byte")
        guard frame.count >= 4, let base = frame.baseAddress, frame.loadUnaligned(as: UInt32.self).littleEndian == CShareZstd_magicNumber
        else { throw .notZstd }
        let declared = ZSTD_getFrameContentSize(base, frame.count)
        if declared == CShareZstd_contentSizeError { throw .truncated }
        if declared != CShareZstd_contentSizeUnknown && declared != UInt64(expectedLength) {
            throw .declaredLength(declared, expected: expectedLength)
        }
        let frameSize = ZSTD_findFrameCompressedSize(base, frame.count)
        if CShareZstd_isSourceSizeWrong(frameSize) != 0 { throw .truncated }
        if ZSTD_isError(frameSize) != 0 { throw .damaged(Self.reason(frameSize)) }
        if frameSize != frame.count { throw .trailingBytes(frame.count - frameSize) }

        var failure: ZstdFrameError?
        let bytes = context.withLock { context in
            [UInt8](unsafeUninitializedCapacity: expectedLength) { buffer, initialized in
                let result = ZSTD_decompressDCtx(context.pointer, buffer.baseAddress, expectedLength, base, frame.count)
                if CShareZstd_isDestinationTooSmall(result) != 0 {
                    failure = .longerThanExpected(expected: expectedLength)
                } else if ZSTD_isError(result) != 0 {
                    failure = .damaged(Self.reason(result))
                } else if result != expectedLength {
                    failure = .shorterThanExpected(result, expected: expectedLength)
                }
                // Nothing of a refused frame is handed out; the bytes are not read.
                initialized = failure == nil ? expectedLength : 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// The bytes `frame` stands for; see ``decompress(_:expectedLength:)-(UnsafeRawBufferPointer,_)``.
    public func decompress(_ frame: [UInt8], expectedLength: Int) throws(ZstdFrameError) -> [UInt8] {
        let result = frame.withUnsafeBytes { raw in
            Result { () throws(ZstdFrameError) in try decompress(raw, expectedLength: expectedLength) }
        }
        return try result.get()
    }

    /// The memory the decompressor's libzstd context holds, in bytes. The corresponding C function
    /// is `ZSTD_sizeof_DCtx`.
    public var memoryBytes: Int {
        context.withLock { Int(ZSTD_sizeof_DCtx($0.pointer)) }
    }

    private static func reason(_ result: Int) -> String {
        String(cString: ZSTD_getErrorName(result))
    }
}
