import ShareDocuments
import ShareTLS
import ShareWire

/// The receiver's trust decisions about a sender, made on its key alone before anything but HELLO
/// is sent: blocked keys and the receive policy. Only `ask` reaches the user, at most a few times a
/// minute per peer.
struct ReceiveGate {
    /// What to do with a sender.
    enum Verdict {
        /// Accept its offer without asking.
        case accept
        /// Ask the user about its offer.
        case ask
        /// Refuse it at once, before its offer.
        case refuse(Decision)
    }

    /// The verdict and what it was based on.
    struct Judgement {
        var verdict: Verdict
        /// The sender's pin, when this machine verified it.
        var pinned: TrustStore.Peer?
        /// A verified peer whose name the (unverified) sender claims.
        var namesake: TrustStore.Peer?
        /// Whether the sender is verified here: pinned, or vouched for by a team CA.
        var verified = false
    }

    let configuration: ReceiverConfiguration
    let limiter: PromptLimiter

    /// The decision for a sender calling itself `name`, with `fingerprint`, at `address`.
    func evaluate(name: String, fingerprint: Fingerprint, caTrustedBy: String?) -> Judgement {
        var trust = TrustStore()
        do {
            if let directory = configuration.configDirectory { trust = try TrustStore.load(from: directory) }
        } catch {
            let refusal = Decision(.refusedByPolicy, message: "the receiver cannot read its trust store and refuses everything")
            return Judgement(verdict: .refuse(refusal))
        }
        let pinned = trust.peer(fingerprint)
        let namesake = trust.namesake(of: name, fingerprint: fingerprint)
        let verified = pinned != nil || caTrustedBy != nil
        func judgement(_ verdict: Verdict) -> Judgement {
            Judgement(verdict: verdict, pinned: pinned, namesake: namesake, verified: verified)
        }
        if trust.isBlocked(fingerprint) {
            return judgement(.refuse(Decision(.refusedByPolicy, message: "the receiver refuses offers from this sender")))
        }
        switch configuration.effectivePolicy() {
        case .everyone:
            return judgement(.accept)
        case .trusted:
            return verified
                ? judgement(.accept)
                : judgement(.refuse(Decision(.refusedByPolicy, message: Self.onlyVerified(sender: name, receiver: configuration.deviceName))))
        case .ask:
            return judgement(.ask)
        }
    }

    /// Why `--accept trusted` refuses an unverified sender, and how the two users fix that, for both
    /// of them to read (the sender is told, the receiver prints it): the receiver's user runs
    /// `share trust verify` on the receiving machine, which needs the sender to run
    /// `share receive --accept ask` on a terminal to show its code. (The other way round, the
    /// receiver would have to stop receiving to ask instead.) The names are escaped: the sender's
    /// came from the network and is printed on this terminal too.
    static func onlyVerified(sender: String, receiver: String) -> String {
        let sender = DisplayText.escape(sender)
        return "the receiver accepts only from peers it has verified; to verify this sender (\"\(sender)\"), the person at "
            + "\"\(DisplayText.escape(receiver))\" runs this on that machine while \"\(sender)\" runs "
            + "'share receive --accept ask' on a terminal: share trust verify \(ShellWord.quoted(sender))"
    }

    /// Why one more prompt for this sender is not allowed now, or nil when it is (per key and per
    /// address for a sender not verified here; a verified one has its own, larger allowance).
    func promptRefusal(fingerprint: Fingerprint, address: String, verified: Bool) -> PromptLimiter.Refusal? {
        limiter.admit(fingerprint: fingerprint.hex, address: Self.host(of: address), verified: verified)
    }

    /// The host part of `address:port` / `[v6]:port`.
    static func host(of address: String) -> String {
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<close])
        }
        guard let colon = address.lastIndex(of: ":") else { return address }
        return String(address[..<colon])
    }
}
