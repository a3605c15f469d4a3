import ShareKit
import TypeRegistry

/// How `share peers` shows LocalSend devices: apart from share's receivers, always as not verified
/// (LocalSend cannot prove who a device is), with the fingerprint LocalSend shows.
enum LocalSendPeerText {
    /// The table under share's own, with a heading that says what these are.
    static func table(_ peers: [LocalSendPeer]) -> String {
        let headers = ["NAME", "TYPE", "MODEL", "ADDRESS", "FINGERPRINT", ""]
        let rows = peers.map { peer in
            [
                TerminalText.safe(peer.alias), TerminalText.safe(peer.deviceType ?? "-"),
                TerminalText.safe(peer.deviceModel ?? "-"), peer.endpoint, TerminalText.safe(String(peer.fingerprint.prefix(16))),
                peer.https ? "" : "(plain HTTP)",
            ]
        }
        let widths = headers.indices.map { column in
            ([headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.rightPadded($1) }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        return "LocalSend devices (phones and other computers; not verified: LocalSend cannot prove who they are):\n"
            + ([line(headers)] + rows.map(line)).joined(separator: "\n") + "\n"
    }

    /// One line of `share peers --watch`, after its `+`.
    static func summary(_ peer: LocalSendPeer) -> String {
        "\(TerminalText.safe(peer.alias))  \(peer.endpoint)  \(TerminalText.safe(String(peer.fingerprint.prefix(16))))  "
            + "LocalSend \(TerminalText.safe(peer.deviceType ?? "device")), not verified"
    }

    /// How `--watch` keeps a device apart from share's receivers and from other devices of the same
    /// name: by its fingerprint.
    static func watchKey(_ peer: LocalSendPeer) -> String { "localsend:" + peer.fingerprint.uppercased() }

    /// One entry of `share peers --json`.
    static func json(_ peer: LocalSendPeer) -> JSON {
        .object([
            ("protocol", .string("localsend")),
            ("name", .string(peer.alias)),
            ("deviceType", peer.deviceType.map(JSON.string) ?? .null),
            ("deviceModel", peer.deviceModel.map(JSON.string) ?? .null),
            ("address", .string(peer.address)),
            ("port", .int(Int64(peer.port))),
            ("https", .bool(peer.https)),
            ("version", .string(peer.version)),
            ("download", .bool(peer.download)),
            ("localsendFingerprint", .string(peer.fingerprint)),
            ("verified", .bool(false)),
        ])
    }
}
