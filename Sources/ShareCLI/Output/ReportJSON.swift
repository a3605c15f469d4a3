import ShareKit
import ShareTLS
import ShareWire
import TypeRegistry

/// The JSON shapes of `share send --json` and `share receive --json` (documented in README.md).
enum ReportJSON {
    static func peer(
        name: String, fingerprint: Fingerprint?, address: String, trustedBy: CAInfo? = nil, pinnedName: String? = nil,
        claimsNameOf: TrustStore.Peer? = nil
    ) -> JSON {
        .object([
            ("name", .string(name)),
            ("fingerprint", fingerprint.map { .string($0.hex) } ?? .null),
            ("address", .string(address)),
            ("trust", trust(trustedBy)),
            ("verified", .bool(pinnedName != nil)),
            ("verifiedAs", pinnedName.map(JSON.string) ?? .null),
            ("claimsNameOf", claimsNameOf.map { .string($0.fingerprint) } ?? .null),
        ])
    }

    /// The peer of an offer.
    static func peer(_ offer: IncomingOffer) -> JSON {
        peer(
            name: offer.peerName, fingerprint: offer.peerFingerprint, address: offer.peerAddress, trustedBy: offer.peerTrustedBy,
            pinnedName: offer.pinnedName, claimsNameOf: offer.claimsNameOf)
    }

    /// Why the peer is trusted, when something vouches for it: `"ca:<subject>"` for a team CA.
    static func trust(_ trustedBy: CAInfo?) -> JSON {
        trustedBy.map { .string("ca:" + $0.subject) } ?? .null
    }

    static func sent(_ report: SendReport, to target: String) -> JSON {
        .object([
            ("ok", .bool(true)),
            ("to", .string(target)),
            ("outcome", .string("sent")),
            (
                "peer",
                peer(
                    name: report.peerName, fingerprint: report.peerFingerprint, address: report.endpoint,
                    trustedBy: report.peerTrustedBy,
                    pinnedName: report.peerVerification == .verified || report.peerVerification == .confirmedNow
                        ? report.pinnedName ?? report.peerName : nil)
            ),
            ("verification", .string(report.peerVerification.label)),
            ("items", .array(report.items.map { item in
                .object([
                    ("source", .string(item.source)),
                    ("name", .string(item.name)),
                    ("bundle", .bool(item.isBundle)),
                    ("outcome", .string(item.outcome.description)),
                    (item.outcome == .keptInInbox ? "reason" : item.outcome == .imported ? "application" : "location", .string(item.text)),
                ])
            })),
            ("files", .int(Int64(report.files.count))),
            ("bytes", .int(Int64(report.bytes))),
            ("resumedBytes", .int(Int64(report.resumedBytes))),
            ("attempts", .int(Int64(report.attempts))),
            ("seconds", .double(report.seconds)),
            ("waitedSeconds", .double(report.waitedSeconds)),
            // DATA payload bytes (after zstd); the same as "bytes" less what was resumed when nothing was compressed.
            ("payloadBytes", report.compression.map { JSON.int(Int64($0.payloadBytes)) } ?? .null),
            ("verified", .array(report.files.map(verified))),
        ])
    }

    static func sendFailed(to target: String, outcome: String, error: String) -> JSON {
        .object([("ok", .bool(false)), ("to", .string(target)), ("outcome", .string(outcome)), ("error", .string(error))])
    }

    static func received(_ transfer: ReceivedTransfer) -> JSON {
        .object([
            ("event", .string("received")),
            (
                "peer",
                peer(
                    name: transfer.peerName, fingerprint: transfer.peerFingerprint, address: transfer.peerAddress,
                    trustedBy: transfer.peerTrustedBy, pinnedName: transfer.pinnedName, claimsNameOf: transfer.claimsNameOf)
            ),
            ("verifiedNow", .bool(transfer.verifiedNow)),
            ("items", .array(transfer.items.map(ReceivedReport.itemJSON))),
            ("files", .int(Int64(transfer.files.count))),
            ("bytes", .int(Int64(transfer.bytes))),
            ("resumedBytes", .int(Int64(transfer.resumedBytes))),
            ("seconds", .double(transfer.seconds)),
            ("verified", .array(transfer.files.map { file in
                .object([("path", .string(file.path)), ("bytes", .int(Int64(file.bytes))), ("sha256", .string(file.sha256))])
            })),
        ])
    }

    private static func verified(_ file: SendReport.VerifiedFile) -> JSON {
        .object([("path", .string(file.path)), ("bytes", .int(Int64(file.bytes))), ("sha256", .string(file.sha256))])
    }
}
