// ShareTLS: the TLS configuration shared by all connections of one role.

internal import CShareOpenSSL

/// TLS settings for one side of share's connections: an OpenSSL `SSL_CTX`.
///
/// Every context enforces the same rules:
/// - TLS 1.3 only (minimum and maximum), OpenSSL's default AES-GCM / ChaCha20-Poly1305 suites;
/// - both sides present certificates: a server *requires* one from the client, a client requires one from the
///   server;
/// - certificates are self-signed, or issued by a team CA, so a CA is not required: a peer certificate whose
///   only problem is an unknown issuer is accepted, anything wrong with the peer's own certificate (expired,
///   not yet valid, bad signature, wrong usage) is refused. The caller pins the peer by
///   ``TLSConnection/peerFingerprint`` after the handshake, or accepts it because
///   ``TLSConnection/peerTrustedBy`` names one of the team CAs in ``anchors``;
/// - no session resumption (no tickets, no session cache), so every connection runs the full verification.
///
/// `@unchecked Sendable`: the `SSL_CTX` is fully configured in init and never modified afterwards; OpenSSL
/// allows one configured `SSL_CTX` to create connections on many threads at once.
public final class TLSContext: @unchecked Sendable {
    /// Which end of the handshake connections made from this context play.
    enum Role: Sendable {
        case server, client
    }

    /// Server or client.
    let role: Role

    /// The `SSL_CTX`, owned by this object.
    let pointer: OpaquePointer

    /// The identity presented to peers (kept alive with the context).
    let identity: Identity?

    /// The team CAs whose certificates make a peer CA-trusted (in the context's certificate store).
    let anchors: TrustAnchors

    /// Whether the peer must present a certificate (every context but ``serverForAnyClient(identity:)``).
    let requiresPeerCertificate: Bool

    /// A context for accepting connections: presents `identity` and requires a certificate from every client.
    ///
    /// - Parameter anchors: the team CAs the user added; a client whose certificate one of them issued is
    ///   reported by ``TLSConnection/peerTrustedBy``.
    /// - Throws: ``TLSError/openSSL(operation:reasons:)`` if OpenSSL cannot set up the context.
    public static func server(identity: Identity, anchors: TrustAnchors = .none) throws(TLSError) -> TLSContext {
        try TLSContext(role: .server, identity: identity, anchors: anchors, version: TLS1_3_VERSION)
    }

    /// A context for making connections: presents `identity` and requires a certificate from the server.
    ///
    /// - Parameter anchors: the team CAs the user added; a server whose certificate one of them issued is
    ///   reported by ``TLSConnection/peerTrustedBy``.
    /// - Throws: ``TLSError/openSSL(operation:reasons:)`` if OpenSSL cannot set up the context.
    public static func client(identity: Identity, anchors: TrustAnchors = .none) throws(TLSError) -> TLSContext {
        try TLSContext(role: .client, identity: identity, anchors: anchors, version: TLS1_3_VERSION)
    }

    /// A context for accepting connections from clients that present no certificate: LocalSend senders,
    /// which cannot prove who they are (docs/SECURITY.md, "LocalSend devices"). Presents `identity`; no
    /// client is ever CA-trusted or pinned through it.
    ///
    /// - Throws: ``TLSError/openSSL(operation:reasons:)`` if OpenSSL cannot set up the context.
    public static func serverForAnyClient(identity: Identity) throws(TLSError) -> TLSContext {
        try TLSContext(role: .server, identity: identity, anchors: .none, version: TLS1_3_VERSION, asksClients: false)
    }

    /// A client context that presents no certificate (for tests: servers must refuse it).
    package static func clientWithoutCertificate() throws(TLSError) -> TLSContext {
        try TLSContext(role: .client, identity: nil, anchors: .none, version: TLS1_3_VERSION)
    }

    /// A context that speaks only TLS 1.2, otherwise configured like the others (for tests: an outdated peer).
    package static func tls12Only(
        server: Bool, identity: Identity, anchors: TrustAnchors = .none
    ) throws(TLSError) -> TLSContext {
        try TLSContext(role: server ? .server : .client, identity: identity, anchors: anchors, version: TLS1_2_VERSION)
    }

    /// Sets up an `SSL_CTX` for `role`, speaking exactly protocol `version`.
    private init(
        role: Role, identity: Identity?, anchors: TrustAnchors, version: Int32, asksClients: Bool = true
    ) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard
            let context = openssl.SSL_CTX_new(
                role == .server ? openssl.TLS_server_method() : openssl.TLS_client_method())
        else {
            throw TLSContext.failure("creating a TLS context", "SSL_CTX_new failed")
        }
        self.pointer = context
        self.role = role
        self.identity = identity
        self.anchors = anchors
        self.requiresPeerCertificate = asksClients

        guard control(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(version)) == 1,
            control(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(version)) == 1
        else {
            throw TLSContext.failure("restricting the TLS version", "SSL_CTX_set_min/max_proto_version failed")
        }

        // No resumption: every connection verifies the peer's certificate in full.
        _ = openssl.SSL_CTX_set_options(
            context, CShareOpenSSL_SSL_OP_NO_TICKET() | CShareOpenSSL_SSL_OP_NO_RENEGOTIATION())
        _ = control(context, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF))
        guard openssl.SSL_CTX_set_num_tickets(context, 0) == 1 else {
            throw TLSContext.failure("turning off session tickets", "SSL_CTX_set_num_tickets failed")
        }

        let mode = role == .server ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT : SSL_VERIFY_PEER
        openssl.SSL_CTX_set_verify(context, asksClients ? mode : SSL_VERIFY_NONE, asksClients ? verifyPeerCertificate : nil)

        // Present exactly the chain the identity holds: never one OpenSSL builds from the team CAs' store.
        _ = control(context, SSL_CTRL_MODE, Int(SSL_MODE_NO_AUTO_CHAIN))

        // Read-ahead: each recv takes whatever has arrived that fits OpenSSL's buffer, whose size stays
        // its least (one whole record). Before it decrypts each record, OpenSSL moves the bytes it
        // has not used yet to the buffer's front: with 256 KiB of read-ahead that moving cost a
        // receiver ~0.2 CPU-s per GiB, more than the recv calls a smaller buffer adds
        // (docs/PERFORMANCE.md, "Measured design choices").
        _ = control(context, SSL_CTRL_SET_READ_AHEAD, 1)

        // The team CAs: the handshake verifies peers against them (an unknown issuer is still accepted, see
        // verifyPeerCertificate), and TLSConnection checks afresh whether one of them vouches for the peer.
        if let store = anchors.store {
            openssl.SSL_CTX_set1_cert_store(context, store)
        }

        if let identity {
            guard openssl.SSL_CTX_use_certificate(context, identity.certificate.pointer) == 1,
                openssl.SSL_CTX_use_PrivateKey(context, identity.key.pointer) == 1,
                openssl.SSL_CTX_check_private_key(context) == 1
            else {
                throw TLSContext.failure("loading this node's certificate and key", "SSL_CTX_use_certificate failed")
            }
            // A CA-issued certificate goes out with the chain it was installed with (intermediate CAs).
            for certificate in identity.chain {
                guard control(context, SSL_CTRL_CHAIN_CERT, 1, UnsafeMutableRawPointer(certificate.pointer)) == 1
                else {
                    throw TLSContext.failure("loading this node's certificate chain", "SSL_CTX_add1_chain_cert failed")
                }
            }
        }
    }

    deinit {
        openssl.SSL_CTX_free(pointer)
    }

    /// `SSL_CTX_ctrl(context, command, value, parg)`: what OpenSSL's `SSL_CTX_set_*` macros
    /// (`SSL_CTX_set_min_proto_version`, `SSL_CTX_set_mode`, `SSL_CTX_add1_chain_cert`, ...) expand to.
    private func control(
        _ context: OpaquePointer, _ command: Int32, _ value: Int, _ parg: UnsafeMutableRawPointer? = nil
    ) -> Int {
        openssl.SSL_CTX_ctrl(context, command, value, parg)
    }

    private static func failure(_ operation: String, _ fallback: String) -> TLSError {
        .openSSL(operation: operation, reasons: OpenSSLErrorQueue.drainTexts(fallback: fallback))
    }
}
