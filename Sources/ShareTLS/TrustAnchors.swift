// ShareTLS: the team CAs this node trusts, as an OpenSSL certificate store.

internal import CShareOpenSSL
internal import Foundation

/// The team CAs the user added (`share trust ca add`): the trust anchors of this node's TLS contexts.
///
/// A peer is *CA-trusted* when its certificate chains to one of these CAs, checked by OpenSSL's full path
/// validation (signatures, validity of every certificate including the CA's own, basic constraints, key
/// usage, and the TLS purpose of the peer's role). It is never CA-trusted through a self-signed leaf, a leaf
/// from a CA not in this set, an expired or not-yet-valid leaf (refused outright by the handshake), or an
/// expired CA. The peer's identity stays the fingerprint of its key either way.
///
/// `@unchecked Sendable`: the `X509_STORE` is filled in init and never modified afterwards; OpenSSL locks the
/// store internally for the lookups that verification does, so contexts on many threads may share it.
public final class TrustAnchors: @unchecked Sendable {
    /// No team CA: every peer is judged by its fingerprint alone.
    public static let none = TrustAnchors()

    /// The CAs, without duplicates, in the order given.
    public let authorities: [CACertificate]

    /// The `X509_STORE` holding ``authorities``, owned by this object; `nil` when there are none.
    let store: OpaquePointer?

    /// Whether there are no CAs.
    public var isEmpty: Bool { authorities.isEmpty }

    private init() {
        authorities = []
        store = nil
    }

    /// A trust-anchor set of `authorities` (a CA given twice counts once).
    ///
    /// - Throws: ``TrustAnchorError/openSSL(operation:reasons:)`` if OpenSSL cannot build the store.
    /// The corresponding C functions are `X509_STORE_new` and `X509_STORE_add_cert`.
    public init(_ authorities: [CACertificate]) throws(TrustAnchorError) {
        var seen = Set<Fingerprint>()
        let unique = authorities.filter { seen.insert($0.info.fingerprint).inserted }
        self.authorities = unique
        guard !unique.isEmpty else {
            store = nil
            return
        }
        OpenSSLErrorQueue.clear()
        guard let store = openssl.X509_STORE_new() else {
            throw .openSSL(
                operation: "creating a certificate store",
                reasons: OpenSSLErrorQueue.drainTexts(
                    fallback: "X509_STORE_new failed"))
        }
        self.store = store
        for authority in unique {
            guard openssl.X509_STORE_add_cert(store, authority.certificate.pointer) == 1 else {
                throw .openSSL(
                    operation: "adding a CA to the certificate store",
                    reasons: OpenSSLErrorQueue.drainTexts(
                        fallback: "X509_STORE_add_cert failed"))
            }
        }
    }

    deinit {
        if let store { openssl.X509_STORE_free(store) }
    }

    /// What path validation against these anchors says about a peer.
    struct Verdict {
        /// The CA that vouches for the peer, if one does.
        var authority: CAInfo?
        /// When the peer's chain leads to one of these CAs but fails validation: why (e.g. the CA expired).
        var problem: String?
    }

    /// Whether one of these CAs vouches for a peer's certificate.
    ///
    /// Runs OpenSSL's path validation afresh (independently of what the handshake's verification callback
    /// accepted) against these anchors only: `leaf`, with the certificates the peer sent as untrusted
    /// intermediates, must chain to one of ``authorities`` with every check passing (signatures, dates of every
    /// certificate including the CA's, basic constraints, key usage), for the TLS purpose of the peer's role.
    /// A chain of one certificate (a leaf that is itself an anchor) never counts.
    ///
    /// - Parameters:
    ///   - leaf: the peer's certificate (`X509`).
    ///   - untrusted: the chain the peer sent (`STACK_OF(X509)`), if any.
    ///   - peerIsClient: whether the peer is the TLS client (then it must be fit for client authentication).
    /// The corresponding C functions are `X509_STORE_CTX_init`, `X509_STORE_CTX_set_default` and
    /// `X509_verify_cert`.
    func evaluate(leaf: OpaquePointer, untrusted: OpaquePointer?, peerIsClient: Bool) -> Verdict {
        guard let store else { return Verdict() }
        _ = openssl.ERR_set_mark()
        defer { _ = openssl.ERR_pop_to_mark() }
        guard let context = openssl.X509_STORE_CTX_new() else { return Verdict() }
        defer { openssl.X509_STORE_CTX_free(context) }
        guard openssl.X509_STORE_CTX_init(context, store, leaf, untrusted) == 1,
            openssl.X509_STORE_CTX_set_default(context, peerIsClient ? "ssl_client" : "ssl_server") == 1
        else { return Verdict() }
        let verified = openssl.X509_verify_cert(context) == 1 && openssl.X509_STORE_CTX_get_error(context) == X509_V_OK
        guard let chain = openssl.X509_STORE_CTX_get0_chain(context) else { return Verdict() }
        let count = CShareOpenSSL_sk_X509_num(openssl.OPENSSL_sk_num, chain)
        // The team CA the chain reached, if any (above the leaf).
        var anchor: CACertificate?
        if count >= 2 {
            for index in 1..<count {
                guard let certificate = CShareOpenSSL_sk_X509_value(openssl.OPENSSL_sk_value, chain, index) else {
                    continue
                }
                if let match = authorities.first(where: { openssl.X509_cmp($0.certificate.pointer, certificate) == 0 })
                {
                    anchor = match
                }
            }
        }
        guard let anchor else { return Verdict() }
        if verified, let top = CShareOpenSSL_sk_X509_value(openssl.OPENSSL_sk_value, chain, count - 1),
            openssl.X509_cmp(anchor.certificate.pointer, top) == 0
        {
            return Verdict(authority: anchor.info)
        }
        let code = openssl.X509_STORE_CTX_get_error(context)
        let text = openssl.X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
        return Verdict(problem: "\(text) (team CA \"\(anchor.info.displayName)\")")
    }
}
