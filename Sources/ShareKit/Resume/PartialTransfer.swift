public import Foundation

/// A transfer that did not complete, kept by the receiver so that the same sender can continue it
/// (docs/PROTOCOL.md §7, docs/SECURITY.md "Partial transfers"): its files sit in a staging area of
/// the inbox, never under a final name, until it completes, expires or is removed.
public struct PartialTransfer: Sendable, Hashable, Codable {
    /// The staging area's name (`r-` and 32 hex digits), which ``PartialStore/remove(_:)`` takes.
    public var id: String
    /// The sender's name when the transfer was accepted.
    public var senderName: String
    /// The sender's fingerprint (64 hex digits): only this key can continue the transfer.
    public var senderFingerprint: String
    /// The offer's identity (64 hex digits, ``OfferIdentity``).
    public var offerID: String
    /// The names of the offer's items.
    public var items: [String]
    /// Files in the offer.
    public var fileCount: Int
    /// Bytes in the offer.
    public var totalBytes: UInt64
    /// When its user (or its policy) accepted it.
    public var acceptedAt: Date
    /// When data last arrived, or the transfer last stopped: it expires a keep window after this.
    public var updatedAt: Date
    /// Bytes of the offer held (counted when listed; not stored).
    public var heldBytes: UInt64 = 0

    private enum CodingKeys: String, CodingKey {
        case id, senderName, senderFingerprint, offerID, items, fileCount, totalBytes, acceptedAt, updatedAt
    }

    /// When it will be removed if nobody continues it.
    public func expires(keep: Duration) -> Date {
        updatedAt.addingTimeInterval(Double(keep.components.seconds))
    }
}
