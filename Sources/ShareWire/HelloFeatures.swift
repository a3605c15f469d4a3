/// The optional features a side supports (HELLO `features`, docs/PROTOCOL.md §4.1). A feature is
/// in use on a connection only when both HELLOs carry it; unknown bits are ignored.
public struct HelloFeatures: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// This side decodes zstd-encoded DATA (§8).
    public static let zstd = HelloFeatures(rawValue: 1 << 0)
    /// Receiver: it keeps interrupted transfers and reports them with HAVE; sender: it can continue
    /// from them (§7).
    public static let resume = HelloFeatures(rawValue: 1 << 1)

    /// Every feature this implementation knows.
    public static let known: HelloFeatures = [.zstd, .resume]
}
