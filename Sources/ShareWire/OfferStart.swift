/// The header of an OFFER frame: the size of the whole offer, which may continue in ENTRIES frames
/// (docs/PROTOCOL.md §4).
public struct OfferStart: Sendable, Hashable {
    /// The number of entries of the whole offer.
    public var entryCount: UInt32
    /// The sum of the sizes of every file and note of the whole offer.
    public var totalBytes: UInt64

    /// Creates a header.
    public init(entryCount: UInt32, totalBytes: UInt64) {
        self.entryCount = entryCount
        self.totalBytes = totalBytes
    }
}
