import Foundation
import ShareWire
import ShareDocuments

/// An offer the receiver committed from a resumable transfer (docs/PROTOCOL.md §7, "Completed
/// offers"), recorded durably at the commit's decision point and kept for the keep window, so that
/// the same sender continuing the same offer (its receipt was lost: the receiver was killed right
/// after the commit, or the sender before the receipt reached it) is told that everything is
/// already there instead of placing the documents a second time.
struct CompletedOffer: Sendable, Codable {
    /// What became of one item, once its import ended.
    struct Delivery: Sendable, Codable {
        /// The RECEIPT outcome (``ReceiptOutcome``'s wire value).
        var outcome: UInt8
        /// The RECEIPT text.
        var text: String
        /// Where it is on this machine, if known.
        var path: String?
    }

    /// The sender's fingerprint (64 hex digits).
    var senderFingerprint: String
    /// The offer's identity (64 hex digits).
    var offerID: String
    /// When the commit's decision point was passed.
    var completedAt: Date
    /// The SHA-256 of each file, in offer order (hex): the HAVE records that say "all of it".
    var fileDigests: [String]
    /// The inbox entry each item was committed as, in offer order.
    var entryIDs: [String]
    /// What became of each item, once every import ended (nil until then).
    var deliveries: [Delivery]?

    /// When it is forgotten.
    func expires(keep: Duration) -> Date {
        completedAt.addingTimeInterval(Double(keep.components.seconds))
    }

    /// The HAVE records that say the receiver holds every byte of every non-empty file.
    func haveRecords(sizes: [UInt64]) -> [HaveRecord] {
        zip(sizes, fileDigests).enumerated().compactMap { index, file in
            guard file.0 > 0, let digest = Hex.decode(file.1) else { return nil }
            return HaveRecord(fileIndex: UInt32(index), offset: file.0, sha256: digest)
        }
    }
}
