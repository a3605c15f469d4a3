import Foundation
public import ShareDocuments
import ShareTLS
import ShareTransport
import ShareWire

extension TransferRecord {
    /// The record of what a receiver's connection came to, or nil when it was not a transfer
    /// (a refused connection, a pairing, an automatic refusal of a busy sender).
    /// - Parameter trust: the trust store, for the name a verified sender was pinned under.
    public init?(_ outcome: IncomingOutcome, trust: TrustStore?) {
        switch outcome {
        case .received(let transfer):
            self.init(
                direction: .received,
                peer: transfer.localSend.map { Self.peer($0, transfer.peerAddress) }
                    ?? Self.peer(transfer.peerName, transfer.peerFingerprint, transfer.peerAddress, trust),
                outcome: .completed, reason: nil, items: transfer.items.map(Self.item), files: transfer.files.count,
                bytes: transfer.bytes)
        case .declined(let offer, let decision):
            guard decision.code != .busy else { return nil }
            let reason = decision.message.isEmpty ? decision.code.description : decision.message
            self.init(
                direction: .received,
                peer: offer.localSend.map { Self.peer($0, offer.peerAddress) }
                    ?? Self.peer(offer.peerName, offer.peerFingerprint, offer.peerAddress, trust),
                outcome: .declined, reason: reason, items: Self.items(offer.manifest, reason: nil),
                files: offer.manifest.fileCount, bytes: offer.manifest.totalBytes)
        case .failed(let name, let fingerprint, let address, let failure, _):
            self.init(
                direction: .received,
                peer: Peer(
                    name: name ?? "", pinnedName: fingerprint.flatMap { trust?.peer($0)?.name },
                    fingerprint: fingerprint?.hex,
                    address: address),
                outcome: .failed, reason: failure.description, items: [], files: 0, bytes: 0)
        case .refusedSender(let name, let fingerprint, let address, let decision, _):
            guard decision.code != .busy else { return nil }
            self.init(
                direction: .received, peer: Self.peer(name, fingerprint, address, trust), outcome: .declined,
                reason: decision.message.isEmpty ? decision.code.description : decision.message, items: [], files: 0,
                bytes: 0)
        case .refused, .paired:
            return nil
        }
    }

    /// The record of a completed send of `manifest`.
    public init(_ report: SendReport, manifest: Manifest, trust: TrustStore?) {
        var peer = Self.peer(report.peerName, report.peerFingerprint, report.endpoint, trust)
        peer.pinnedName = peer.pinnedName ?? report.pinnedName
        self.init(
            direction: .sent, peer: peer, outcome: .completed, reason: nil,
            items: zip(report.items, manifest.items).map { item, offered in
                // The receiver's words: where it landed, the importing application, or why it stayed.
                Item(
                    name: item.name, bundle: item.isBundle, bytes: offered.byteCount, outcome: item.outcome.description,
                    location: item.outcome == .keptInInbox ? nil : item.text,
                    reason: item.outcome == .keptInInbox ? item.text : nil)
            },
            files: report.files.count, bytes: report.bytes)
    }

    /// The record of a send to `target` (what the user typed, or the peer's label) that did not complete.
    public init(
        failedSend manifest: Manifest, to target: String, error: SendError, greeted: GreetedReceiver? = nil,
        trust: TrustStore? = nil
    ) {
        var outcome = Outcome.failed
        if case .declined = error { outcome = .declined }
        var peer = Peer(name: target)
        if let greeted {
            peer = Self.peer(greeted.name, greeted.fingerprint, greeted.address, trust)
        } else if case .identityMismatch(let endpoint, _, let actual) = error {
            peer = Self.peer(target, actual, endpoint, trust)
        }
        self.init(
            direction: .sent, peer: peer, outcome: outcome, reason: error.description,
            items: Self.items(manifest, reason: nil), files: manifest.fileCount, bytes: manifest.totalBytes)
    }

    /// A LocalSend sender: no key, never verified; the LocalSend fingerprint it claims.
    private static func peer(_ device: LocalSendOrigin, _ address: String) -> Peer {
        Peer(name: device.alias, pinnedName: nil, fingerprint: nil, address: address, localSendFingerprint: device.claimedFingerprint)
    }

    private static func peer(
        _ name: String, _ fingerprint: Fingerprint, _ address: String, _ trust: TrustStore?
    ) -> Peer {
        Peer(name: name, pinnedName: trust?.peer(fingerprint)?.name, fingerprint: fingerprint.hex, address: address)
    }

    private static func item(_ item: ReceivedTransfer.Item) -> Item {
        switch item.result.outcome {
        case .receiveFolder(let path):
            Item(
                name: item.name, bundle: item.isBundle, bytes: item.bytes, outcome: "placed", location: path,
                reason: nil)
        case .imported(let path):
            Item(
                name: item.name, bundle: item.isBundle, bytes: item.bytes, outcome: "imported",
                location: path ?? item.result.application.map { "imported by \($0.name)" }, reason: nil)
        case .kept(let failure, _):
            Item(
                name: item.name, bundle: item.isBundle, bytes: item.bytes, outcome: "keptInInbox", location: item.path,
                reason: failure)
        }
    }

    private static func items(_ manifest: Manifest, reason: String?) -> [Item] {
        manifest.items.map { item in
            Item(
                name: item.name, bundle: item.isBundle, bytes: item.byteCount, outcome: "notDelivered", location: nil,
                reason: reason)
        }
    }
}

extension TransferRecord {
    /// The record of a send to a LocalSend device, completed or not.
    public init(
        localSend manifest: Manifest, to target: LocalSendTarget, result: Result<LocalSendReport, LocalSendError>
    ) {
        switch result {
        case .success(let report):
            self.init(
                direction: .sent,
                peer: Peer(
                    name: report.label, pinnedName: nil, fingerprint: nil, address: report.endpoint,
                    localSendFingerprint: report.fingerprint),
                outcome: .completed, reason: nil,
                items: manifest.items.map { item in
                    Item(name: item.name, bundle: item.isBundle, bytes: item.byteCount, outcome: "delivered", location: nil, reason: nil)
                },
                files: report.files, bytes: report.bytes)
        case .failure(let error):
            self.init(
                direction: .sent,
                peer: Peer(
                    name: target.label, pinnedName: nil, fingerprint: nil, address: target.endpoint.description,
                    localSendFingerprint: error.fingerprint ?? target.fingerprint ?? ""),
                outcome: error.outcome == "declined" ? .declined : .failed, reason: error.description,
                items: Self.items(manifest, reason: nil), files: manifest.fileCount, bytes: manifest.totalBytes)
        }
    }
}

extension TransferRecord.Peer {
    /// A peer known only by what the user typed (a send that failed before TLS).
    init(name: String) {
        self.init(name: name, pinnedName: nil, fingerprint: nil, address: nil)
    }
}
