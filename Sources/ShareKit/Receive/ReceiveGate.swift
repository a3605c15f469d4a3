import ShareTLS
import ShareWire

/// The receiver's trust decisions before anything is shown or stored: blocked peers, changed
/// keys, and the receive policy. Only `ask` reaches the user, at most a few times a minute per
/// peer.
struct ReceiveGate {
    /// What to do with a connection that made an offer (or asked to pair).
    enum Verdict {
        /// Accept without asking.
        case accept
        /// Ask the user (first contact: show the verification code).
        case ask(firstContact: Bool)
        /// Decline with this decision, without asking.
        case refuse(Decision)
        /// The name is verified with another key: refuse loudly on both sides.
        case identityChanged(TrustStore.Peer)
    }

    let configuration: ReceiverConfiguration
    let limiter: PromptLimiter

    /// The decision for a sender called `name` with `fingerprint`, at `address`.
    func evaluate(name: String, fingerprint: Fingerprint, address: String, caTrustedBy: String?) -> (Verdict, TrustStore?) {
        var trust = TrustStore()
        do {
            if let directory = configuration.configDirectory { trust = try TrustStore.load(from: directory) }
        } catch {
            return (.refuse(Decision(.refusedByPolicy, message: "the receiver cannot read its trust store and refuses everything")), nil)
        }
        if trust.isBlocked(fingerprint) {
            return (.refuse(Decision(.refusedByPolicy, message: "the receiver refuses offers from this sender")), trust)
        }
        if let known = trust.conflict(name: name, fingerprint: fingerprint) {
            return (.identityChanged(known), trust)
        }
        let verified = trust.peer(fingerprint) != nil || caTrustedBy != nil
        switch configuration.effectivePolicy() {
        case .everyone:
            return (.accept, trust)
        case .trusted:
            return verified
                ? (.accept, trust)
                : (.refuse(
                    Decision(
                        .refusedByPolicy,
                        message: "the receiver accepts only from peers it has verified; its user can verify you with "
                            + "'share trust verify' while it runs 'share receive --accept ask'")), trust)
        case .ask:
            let keys = ["fp:" + fingerprint.hex, "ip:" + Self.host(of: address)]
            guard limiter.allow(keys) else {
                return (.refuse(Decision(.busy, message: "too many offers from this sender; try again in a minute")), trust)
            }
            return (.ask(firstContact: !verified), trust)
        }
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
