import ShareCompression
public import ShareWire

/// The receiver's side of DATA compression (docs/PROTOCOL.md §8): the file bytes a DATA chunk
/// stands for.
///
/// A zstd chunk must be one complete zstd frame that declares no other content size than its
/// `rawLength` and decompresses to exactly `rawLength` bytes; no more than `rawLength` bytes are
/// ever allocated for it. Calls are serialized; one decompressor serves one connection.
public final class ChunkDecompressor: Sendable {
    private let zstd = ZstdDecompressor()

    /// A decompressor.
    public init() {}

    /// The file bytes `chunk` carries: its bytes when raw, its frame decompressed when zstd.
    /// - Throws: ``PeerError`` `protocolViolation` naming the file, the offset and what is wrong
    ///   with the frame: the ERROR to send before closing.
    public func fileBytes(of chunk: DataChunk) throws(PeerError) -> [UInt8] {
        guard case .zstd(let rawLength) = chunk.encoding else { return chunk.bytes }
        do {
            return try zstd.decompress(chunk.bytes, expectedLength: Int(rawLength))
        } catch {
            throw PeerError(
                .protocolViolation, "DATA for file \(chunk.fileIndex) at offset \(chunk.offset) was refused: \(error)")
        }
    }
}
