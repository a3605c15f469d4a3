import ShareDocuments
import ShareKit
import ShareTLS

/// The texts shown before asking: an offer, a pairing request, a code to compare.
enum OfferSummary {
    /// Hex digits of a fingerprint shown with an offer: enough for `share trust block`.
    static let shownDigits = TrustStore.minimumBlockPrefix

    /// A fingerprint as shown next to a peer: its first 16 digits, grouped (`3927 A1B2 C3D4 E5F6`).
    static func fingerprint(_ fingerprint: Fingerprint) -> String {
        String(fingerprint.grouped.prefix(shownDigits + shownDigits / 4 - 1))
    }

    /// How a peer is named on screen: a verified key always with the name it was verified under
    /// (and the name it claims now beside it, if different); a new key that claims a verified
    /// peer's name flagged as a different machine.
    static func who(name: String, pinnedName: String?, claimsNameOf namesake: TrustStore.Peer?, trustedBy: CAInfo?) -> String {
        let claimed = "\"\(TerminalText.safe(name))\""
        if let pinnedName {
            if pinnedName == name { return "\(claimed) (verified)" }
            return "\"\(TerminalText.safe(pinnedName))\" (verified), calling itself \(claimed)"
        }
        if let namesake {
            let same = TrustStore.withoutAlternativeSuffix(name).lowercased() == namesake.name.lowercased()
            return "\(claimed) (NOT the \"\(TerminalText.safe(namesake.name))\" you verified, whose key is "
                + "\(TrustCommandSupport.short(namesake.fingerprint)): another machine \(same ? "with the same name" : "with a name that looks the same"))"
        }
        if let trustedBy { return "\(claimed) (certified by the team CA \"\(TerminalText.safe(trustedBy.displayName))\")" }
        return "\(claimed) (new: not verified)"
    }

    /// How a LocalSend sender is named on screen: `LocalSend device "Ana's phone" (iPhone), not verified`.
    static func localSendWho(_ device: LocalSendOrigin) -> String {
        let model = [device.deviceModel, device.deviceType].compactMap { $0 }.filter { !$0.isEmpty }.map(TerminalText.safe)
        let detail = model.isEmpty ? "" : " (\(model.joined(separator: ", ")))"
        return "LocalSend device \"\(TerminalText.safe(device.alias))\"\(detail), not verified"
    }

    /// An offer: what the user sees before deciding, and the question.
    static func describe(
        _ offer: IncomingOffer, home: String, executableBits: ExecutableBits = .removed
    ) -> (lines: [String], question: String) {
        let manifest = offer.manifest
        let who = who(
            name: offer.peerName, pinnedName: offer.pinnedName, claimsNameOf: offer.claimsNameOf,
            trustedBy: offer.peerTrustedBy)
        let items = manifest.items.count == 1 ? "1 item" : "\(manifest.items.count) items"
        var lines = [
            "\(who) at \(offer.peerAddress) offers \(items), \(ByteCount.format(manifest.totalBytes)):",
            "  fingerprint \(fingerprint(offer.peerFingerprint))",
        ]
        if let device = offer.localSend {
            lines = [
                "\(localSendWho(device)) at \(offer.peerAddress) offers \(items), \(ByteCount.format(manifest.totalBytes)):",
                "  LocalSend devices cannot prove who they are: anyone on this network can send under that name",
            ]
        }
        if offer.peerTrustedBy == nil, let problem = offer.peerCATrustProblem {
            lines.append("  not certified by a team CA: \(TerminalText.safe(problem))")
        }
        if offer.pinnedName == nil && offer.nameMixesScripts {
            lines.append("  note: its name mixes scripts (as names made to look like others do)")
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
            if item.kind == .note { lines += noteLines(manifest.entries[item.entryRange.lowerBound]) }
            lines += detailLines(ItemDetails(of: item, in: manifest), executableBits: executableBits, isBundle: item.isBundle)
        }
        if manifest.items.count > shown.count { lines.append("  ... and \(manifest.items.count - shown.count) more") }
        let quoted = "\"\(TerminalText.safe(offer.peerName))\""
        if offer.comparesCode {
            lines.append("Verification code:  \(offer.verificationCode)   (\(quoted) shows a code on its screen now)")
            return (lines, offer.isVerified ? "Do the codes match, and accept?" : "Do the codes match? Accept, and remember \(quoted) as verified?")
        }
        if offer.isFirstContact && offer.localSend == nil {
            lines.append(
                offer.senderAttended
                    ? "No code is compared: \(quoted) is verified on the sending side only."
                    : "\(quoted) sends unattended and shows no verification code: accepting does not verify it.")
        }
        return (lines, "Accept?")
    }

    /// How the terminal asks about an offer whose code is compared: the user accepts by typing the
    /// code's last digits (nil when no code is compared: the offer is asked y/N).
    static func confirmation(_ offer: IncomingOffer) -> CodeConfirmation? {
        guard offer.comparesCode else { return nil }
        let quoted = "\"\(TerminalText.safe(offer.peerName))\""
        return CodeConfirmation(
            code: offer.verificationCode, peerName: quoted,
            purpose: offer.isVerified ? "to accept" : "to accept and remember \(quoted) as verified")
    }

    /// Hidden entries (the first ones named), links (with their targets) and executables of one item, indented.
    static func detailLines(_ details: ItemDetails, executableBits: ExecutableBits, isBundle: Bool) -> [String] {
        var parts: [String] = []
        if details.hiddenEntries > 0 {
            parts.append("\(details.hiddenEntries) hidden \(details.hiddenEntries == 1 ? "entry" : "entries")")
        }
        if details.executables > 0 {
            let kept = executableBits == .keptInBundles && isBundle
            parts.append(
                "\(details.executables) executable \(details.executables == 1 ? "file" : "files")"
                    + (kept ? " (kept executable)" : " (they arrive not executable)"))
        }
        if !details.links.isEmpty {
            parts.append("\(details.links.count) \(details.links.count == 1 ? "link" : "links")")
        }
        guard !parts.isEmpty else { return [] }
        var lines = ["      holds " + parts.joined(separator: ", ")]
        for path in details.hiddenPaths { lines.append("      hidden \(TerminalText.safe(path))") }
        if details.hiddenEntries > details.hiddenPaths.count {
            lines.append("      ... and \(details.hiddenEntries - details.hiddenPaths.count) more hidden entries")
        }
        for link in details.links.prefix(5) {
            lines.append("      link \(TerminalText.safe(link.path)) -> \(TerminalText.safe(link.target))")
        }
        if details.links.count > 5 { lines.append("      ... and \(details.links.count - 5) more links") }
        return lines
    }

    /// What starts each line of a note's text. Only a note's lines can start with it: every other
    /// line starts with text of this program's own, or with two spaces and a name whose edge spaces
    /// are escaped.
    static let notePrefix = "    │ "

    /// The first lines of a note, as the receiver shows them in the prompt (links are shown, never opened).
    static func noteLines(_ entry: ManifestEntry) -> [String] {
        let text = String(decoding: entry.content, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(8).map {
            notePrefix + TerminalText.safe(String($0.prefix(200)))
        }
        let more = text.split(separator: "\n", omittingEmptySubsequences: false).count > 8 ? [notePrefix + "…"] : []
        return lines + more
    }

    /// A pairing request: what the user sees, and the question.
    static func describe(_ request: PairingRequest) -> (lines: [String], question: String) {
        let who = who(name: request.peerName, pinnedName: request.pinnedName, claimsNameOf: request.claimsNameOf, trustedBy: nil)
        return (
            [
                "\(who) at \(request.peerAddress) asks to verify this machine.",
                "  fingerprint \(fingerprint(request.peerFingerprint))",
                "  code        \(request.verificationCode)",
            ],
            "Does \"\(TerminalText.safe(request.peerName))\" show the same code?"
        )
    }

    /// How the terminal asks to confirm a pairing request's code: by typing its last digits.
    static func confirmation(_ request: PairingRequest) -> CodeConfirmation {
        CodeConfirmation(
            code: request.verificationCode, peerName: "\"\(TerminalText.safe(request.peerName))\"", purpose: "to confirm")
    }

    /// How the sender's terminal asks to confirm the code: by typing its last digits.
    static func confirmation(_ comparison: CodeComparison) -> CodeConfirmation {
        CodeConfirmation(
            code: comparison.verificationCode, peerName: "\"\(TerminalText.safe(comparison.peerName))\"",
            purpose: "to confirm")
    }

    /// The code to compare, seen from the sender: what the user sees, and the question.
    static func describe(_ comparison: CodeComparison) -> (lines: [String], question: String) {
        let who = who(name: comparison.peerName, pinnedName: comparison.pinnedName, claimsNameOf: nil, trustedBy: nil)
        let quoted = "\"\(TerminalText.safe(comparison.peerName))\""
        var lines = ["\(who), fingerprint \(fingerprint(comparison.peerFingerprint)), shows a verification code now."]
        if comparison.pinnedName != nil && comparison.isPairing { lines.append("It is verified already; comparing again.") }
        lines.append("Verification code:  \(comparison.verificationCode)")
        return (lines, "Does \(quoted) show the same code?")
    }
}
