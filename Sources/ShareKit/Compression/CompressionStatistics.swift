/// What a ``ChunkCompressor`` did so far.
public struct CompressionStatistics: Sendable, Hashable {
    /// File bytes that went through it.
    public var fileBytes: UInt64 = 0
    /// DATA payload bytes that came out (zstd frames and raw bytes).
    public var payloadBytes: UInt64 = 0
    /// Chunks sent as zstd frames, and sent raw.
    public var compressedChunks = 0
    public var rawChunks = 0
    /// Files whose names say they are already compressed (never tried).
    public var filesSkippedByType = 0
    /// Samples that did not compress well enough, so the bytes after them went raw.
    public var samplesRefused = 0
    /// The adaptive level's current choice.
    public var choice: AdaptiveLevel.Choice

    /// Payload bytes per file byte (1 when nothing was compressed).
    public var ratio: Double { fileBytes == 0 ? 1 : Double(payloadBytes) / Double(fileBytes) }
}
