import ShareKit
import ShareTLS
import TypeRegistry

/// The JSON shapes of `share send --json` and `share receive --json` (documented in README.md).
enum ReportJSON {
    static func peer(name: String, fingerprint: Fingerprint?, address: String, trustedBy: CAInfo? = nil) -> JSON {
        .object([
            ("name", .string(name)),
            ("fingerprint", fingerprint.map { .string($0.hex) } ?? .null),
            ("address", .string(address)),
            ("trust", trust(trustedBy)),
        ])
    }

    /// Why the peer is trusted, when something vouches for it: `"ca:<subject>"` for a team CA.
    static func trust(_ trustedBy: CAInfo?) -> JSON {
        trustedBy.map { .string("ca:" + $0.subject) } ?? .null
    }

    static func sent(_ report: SendReport) -> JSON {
        .object([
            ("ok", .bool(true)),
            ("peer", peer(name: report.peerName, fingerprint: report.peerFingerprint, address: report.endpoint, trustedBy: report.peerTrustedBy)),
            ("verification", .string(report.peerVerification.label)),
            ("items", .array(report.items.map { item in
                .object([
                    ("source", .string(item.source)),
                    ("name", .string(item.name)),
                    ("bundle", .bool(item.isBundle)),
                    ("location", .string(item.location)),
                ])
            })),
            ("files", .int(Int64(report.files.count))),
            ("bytes", .int(Int64(report.bytes))),
            ("seconds", .double(report.seconds)),
            ("verified", .array(report.files.map(verified))),
        ])
    }

    static func sendFailed(to target: String, error: String) -> JSON {
        .object([("ok", .bool(false)), ("to", .string(target)), ("error", .string(error))])
    }

    static func received(_ transfer: ReceivedTransfer) -> JSON {
        .object([
            ("event", .string("received")),
            ("peer", peer(name: transfer.peerName, fingerprint: transfer.peerFingerprint, address: transfer.peerAddress, trustedBy: transfer.peerTrustedBy)),
            ("items", .array(transfer.items.map(ReceivedReport.itemJSON))),
            ("files", .int(Int64(transfer.files.count))),
            ("bytes", .int(Int64(transfer.bytes))),
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
