import ShareDocuments
import ShareKit
import ShareTLS

/// The texts shown before asking y/N: an offer, a pairing request, a first contact.
enum OfferSummary {
    /// An offer, with the sender's verification status; ends with the question.
    static func describe(_ offer: IncomingOffer, home: String) -> String {
        let manifest = offer.manifest
        let who = "\"\(TerminalText.safe(offer.peerName))\""
        let items = manifest.items.count == 1 ? "1 item" : "\(manifest.items.count) items"
        var lines = [
            "\(who) at \(offer.peerAddress) offers \(items), \(ByteCount.format(manifest.totalBytes)):",
            "  fingerprint \(offer.peerFingerprint.grouped)",
        ]
        if let authority = offer.peerTrustedBy {
            lines.append("  certified by the team CA \"\(TerminalText.safe(authority.displayName))\"")
        } else if offer.isVerified {
            lines.append("  verified earlier")
        } else if let problem = offer.peerCATrustProblem {
            lines.append("  not certified by a team CA: \(TerminalText.safe(problem))")
        }
        let shown = manifest.items.prefix(20)
        let width = min(40, shown.map { TerminalText.safe($0.name).count + ($0.isBundle ? 1 : 0) }.max() ?? 0)
        for item in shown {
            let name = TerminalText.safe(item.name) + (item.isBundle ? "/" : "")
            let size =
                item.isBundle
                ? "\(item.fileCount) \(item.fileCount == 1 ? "file" : "files"), \(ByteCount.format(item.byteCount))"
                : ByteCount.format(item.byteCount)
            let type = item.declaredType.isEmpty ? "" : "  (\(item.declaredType))"
            lines.append("  \(name.rightPadded(width))  \(size)\(type)")
        }
        if manifest.items.count > shown.count { lines.append("  ... and \(manifest.items.count - shown.count) more") }
        if offer.isFirstContact {
            lines.append("First contact with \(who): check that it shows this code:  \(offer.verificationCode)")
            lines.append("Accept, and remember \(who) as verified?")
        } else {
            lines.append("Accept?")
        }
        return lines.joined(separator: "\n")
    }

    /// A pairing request; ends with the question.
    static func describe(_ request: PairingRequest) -> String {
        let who = "\"\(TerminalText.safe(request.peerName))\""
        return """
            \(who) at \(request.peerAddress) asks to verify this machine.
              fingerprint \(request.peerFingerprint.grouped)
              code        \(request.verificationCode)
            Does \(who) show the same code?
            """
    }

    /// First contact seen from the sender; ends with the question.
    static func describe(_ contact: FirstContact) -> String {
        let who = "\"\(TerminalText.safe(contact.peerName))\""
        return """
            First contact with \(who) (fingerprint \(contact.peerFingerprint.grouped)).
            Check that \(who) shows this code:  \(contact.verificationCode)
            Does it?
            """
    }
}
