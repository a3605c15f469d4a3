import ShareKit
import ShareTLS
import TypeRegistry

/// The JSON shapes of `share send --json` and `share receive --json` (docs/JSON.md, and the schemas
/// in docs/schemas).
enum ReportJSON {
    /// A peer, the same object everywhere: `fingerprint` is the full 64 hex digits when the key is
    /// known (else null), `fingerprintPrefix` its first 16 (the short form people see and type).
    static func peer(
        name: String?, fingerprint: String?, prefix: String? = nil, address: String?, trustedBy: CAInfo? = nil,
        pinnedName: String? = nil, claimsNameOf: TrustStore.Peer? = nil
    ) -> JSON {
        let short = (fingerprint ?? prefix).map { String($0.prefix(16)) }
        return .object([
            ("name", name.map(JSON.string) ?? .null),
            ("fingerprint", fingerprint.map(JSON.string) ?? .null),
            ("fingerprintPrefix", short.map(JSON.string) ?? .null),
            ("address", address.map(JSON.string) ?? .null),
            ("trust", trust(trustedBy)),
            ("verified", .bool(pinnedName != nil)),
            ("verifiedAs", pinnedName.map(JSON.string) ?? .null),
            ("claimsNameOf", claimsNameOf.map { .string($0.fingerprint) } ?? .null),
        ])
    }

    /// A peer whose key is known.
    static func peer(
        name: String?, fingerprint: Fingerprint?, address: String?, trustedBy: CAInfo? = nil, pinnedName: String? = nil,
        claimsNameOf: TrustStore.Peer? = nil
    ) -> JSON {
        peer(
            name: name, fingerprint: fingerprint?.hex, address: address, trustedBy: trustedBy, pinnedName: pinnedName,
            claimsNameOf: claimsNameOf)
    }

    /// A LocalSend sender: nothing proves a key, so `fingerprint` is null and `verified` false; the LocalSend
    /// fingerprint it claims is beside them.
    static func peer(localSend device: LocalSendOrigin, address: String) -> JSON {
        .object([
            ("protocol", .string("localsend")),
            ("name", .string(device.alias)),
            ("fingerprint", .null),
            ("fingerprintPrefix", .null),
            ("address", .string(address)),
            ("trust", .null),
            ("verified", .bool(false)),
            ("verifiedAs", .null),
            ("claimsNameOf", .null),
            ("localsendFingerprint", .string(device.claimedFingerprint)),
            ("deviceModel", device.deviceModel.map(JSON.string) ?? .null),
            ("deviceType", device.deviceType.map(JSON.string) ?? .null),
        ])
    }

    /// The peer of an offer.
    static func peer(_ offer: IncomingOffer) -> JSON {
        if let device = offer.localSend { return peer(localSend: device, address: offer.peerAddress) }
        return peer(
            name: offer.peerName, fingerprint: offer.peerFingerprint, address: offer.peerAddress, trustedBy: offer.peerTrustedBy,
            pinnedName: offer.pinnedName, claimsNameOf: offer.claimsNameOf)
    }

    /// The peer a `--to` resolved to: what the connection proved when the receiver answered
    /// (`greeted`), else what discovery and the trust store say about it.
    static func peer(_ destination: SendDestination, greeted: GreetedReceiver? = nil) -> JSON {
        var name: String?
        var fingerprint: String?
        var prefix: String?
        var verifiedAs: String?
        switch destination.expectedKey {
        case .advertised(let advertised, let advertisedName)?:
            name = advertisedName
            prefix = advertised.isEmpty ? nil : advertised
        case .verified(let pinned, let pinnedName)?:
            name = destination.peerName ?? pinnedName
            fingerprint = pinned
            verifiedAs = pinnedName
        case nil:
            break
        }
        // What the connection proved, when the receiver answered before the send ended.
        if let greeted {
            verifiedAs = greeted.verifiedAs
            name = greeted.name
            fingerprint = greeted.fingerprint.hex
        }
        return peer(
            name: name, fingerprint: fingerprint, prefix: prefix, address: greeted?.address ?? destination.address,
            pinnedName: verifiedAs)
    }

    /// Why the peer is trusted, when something vouches for it: `"ca:<subject>"` for a team CA.
    static func trust(_ trustedBy: CAInfo?) -> JSON {
        trustedBy.map { .string("ca:" + $0.subject) } ?? .null
    }

    /// The name the receiver of `report` is verified under, nil when it is not verified.
    /// ``SendReport/pinnedName`` is set only when that name differs from the one the receiver calls
    /// itself, so its absence does not mean "not verified": the verification says that.
    static func verifiedAs(_ report: SendReport) -> String? {
        report.peerVerification == .verified || report.peerVerification == .confirmedNow
            ? report.pinnedName ?? report.peerName : nil
    }

    /// One `share send --json` line for a target that was sent to.
    static func sent(_ report: SendReport, to destination: SendDestination, prepared: PreparedSend) -> JSON {
        .object([
            ("ok", .bool(true)),
            ("to", .string(destination.target)),
            ("outcome", .string("sent")),
            (
                "peer",
                peer(
                    name: report.peerName, fingerprint: report.peerFingerprint, address: report.endpoint,
                    trustedBy: report.peerTrustedBy,
                    pinnedName: verifiedAs(report))
            ),
            ("verification", .string(report.peerVerification.label)),
            ("items", .array(report.items.map(item))),
            ("skipped", skipped(prepared)),
            ("files", .int(Int64(report.files.count))),
            ("bytes", .int(Int64(report.bytes))),
            ("resumedBytes", .int(Int64(report.resumedBytes))),
            ("attempts", .int(Int64(report.attempts))),
            ("seconds", .double(report.seconds)),
            ("waitedSeconds", .double(report.waitedSeconds)),
            // DATA payload bytes (after zstd); the same as "bytes" less what was resumed when nothing was compressed.
            ("payloadBytes", report.compression.map { JSON.int(Int64($0.payloadBytes)) } ?? .null),
        ])
    }

    /// One sent item and where it ended on the receiver: `outcome` is a code, `path`,
    /// `application` and `reason` say the rest (null where they do not apply).
    private static func item(_ item: SendReport.Item) -> JSON {
        .object([
            ("name", .string(item.name)),
            ("bundle", .bool(item.isBundle)),
            ("source", .string(item.source)),
            ("outcome", .string(item.outcome.description)),
            ("path", item.outcome == .placed ? .string(item.text) : .null),
            ("application", item.outcome == .imported ? .object([("name", .string(item.text))]) : .null),
            ("reason", item.outcome == .keptInInbox ? .string(item.text) : .null),
        ])
    }

    /// What the scan left out: special files (named pipes, sockets, devices), with why.
    static func skipped(_ prepared: PreparedSend?) -> JSON {
        .array(
            (prepared?.skipped ?? []).map { skipped in
                .object([("path", .string(skipped.path)), ("kind", .string(skipped.kind.rawValue)), ("reason", .string(skipped.reason))])
            })
    }

    /// One `share send --json` line for a target that was not sent to.
    static func sendFailed(to target: String, peer: JSON, outcome: String, error: String) -> JSON {
        .object([
            ("ok", .bool(false)), ("to", .string(target)), ("outcome", .string(outcome)), ("peer", peer),
            ("error", .string(error)),
        ])
    }

    static func received(_ transfer: ReceivedTransfer) -> JSON {
        .object([
            ("event", .string("received")),
            (
                "peer",
                transfer.localSend.map { peer(localSend: $0, address: transfer.peerAddress) }
                    ?? peer(
                        name: transfer.peerName, fingerprint: transfer.peerFingerprint, address: transfer.peerAddress,
                        trustedBy: transfer.peerTrustedBy, pinnedName: transfer.pinnedName, claimsNameOf: transfer.claimsNameOf)
            ),
            ("verifiedNow", .bool(transfer.verifiedNow)),
            ("items", .array(transfer.items.map(ReceivedReport.itemJSON))),
            ("files", .int(Int64(transfer.files.count))),
            ("bytes", .int(Int64(transfer.bytes))),
            ("resumedBytes", .int(Int64(transfer.resumedBytes))),
            ("seconds", .double(transfer.seconds)),
        ])
    }

    /// Prints `report` (``sent(_:to:prepared:)`` or ``received(_:)``) as one JSON line whose last
    /// member is `verifiedFiles`, every file with its SHA-256, written in pieces of about 64 KiB:
    /// for a million files the line is over 100 MB, which is never held in memory at once.
    static func printLine(_ report: JSON, verifiedFiles files: VerifiedFiles, to console: Console) {
        var head = report.text()
        precondition(head.last == "}", "a report is an object")
        head.removeLast()
        console.out(streaming: { write in
            var piece = head + (head.hasSuffix("{") ? "" : ",") + "\"verifiedFiles\":["
            for (index, file) in files.enumerated() {
                if index > 0 { piece += "," }
                appendVerified(file, to: &piece)
                if piece.utf8.count >= 64 << 10 {
                    write(piece)
                    piece = ""
                }
            }
            write(piece + "]}\n")
        })
    }

    /// Appends `{"path":...,"bytes":...,"sha256":...}`, the text `JSON.object` renders for the file,
    /// without building one (an array of members and a string per file): for 10,000 files `share
    /// send --json` took 13-15 ms from the receipt to its exit, ~10 ms now (docs/PERFORMANCE.md).
    private static func appendVerified(_ file: VerifiedFile, to piece: inout String) {
        piece += "{\"path\":"
        JSONText.appendString(file.path, to: &piece)
        piece += ",\"bytes\":"
        piece += String(file.bytes)
        piece += ",\"sha256\":"
        JSONText.appendString(file.sha256, to: &piece)
        piece += "}"
    }
}
