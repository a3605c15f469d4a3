// ShareTLS: the TLS configuration shared by all connections of one role.

internal import CShareOpenSSL

/// TLS settings for one side of share's connections: an OpenSSL `SSL_CTX`.
///
/// Every context enforces the same rules:
/// - TLS 1.3 only (minimum and maximum), OpenSSL's default AES-GCM / ChaCha20-Poly1305 suites;
/// - both sides present certificates: a server *requires* one from the client, a client requires one from the
///   server;
/// - certificates are self-signed, so trust is not by CA: a peer certificate whose only problem is an unknown
///   issuer is accepted, anything else (expired, not yet valid, bad signature, wrong usage) is refused. The
///   caller pins the peer by ``TLSConnection/peerFingerprint`` after the handshake;
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

    /// Bytes read from the socket at once (with read-ahead), so a large transfer needs few `recv` calls.
    static let readBufferLength = 256 * 1024

    /// A context for accepting connections: presents `identity` and requires a certificate from every client.
    ///
    /// - Throws: ``TLSError/openSSL(operation:reasons:)`` if OpenSSL cannot set up the context.
    public static func server(identity: Identity) throws(TLSError) -> TLSContext {
        try TLSContext(role: .server, identity: identity, version: TLS1_3_VERSION)
    }

    /// A context for making connections: presents `identity` and requires a certificate from the server.
    ///
    /// - Throws: ``TLSError/openSSL(operation:reasons:)`` if OpenSSL cannot set up the context.
    public static func client(identity: Identity) throws(TLSError) -> TLSContext {
        try TLSContext(role: .client, identity: identity, version: TLS1_3_VERSION)
    }

    /// A client context that presents no certificate (for tests: servers must refuse it).
    package static func clientWithoutCertificate() throws(TLSError) -> TLSContext {
        try TLSContext(role: .client, identity: nil, version: TLS1_3_VERSION)
    }

    /// A context that speaks only TLS 1.2, otherwise configured like the others (for tests: an outdated peer).
    package static func tls12Only(server: Bool, identity: Identity) throws(TLSError) -> TLSContext {
        try TLSContext(role: server ? .server : .client, identity: identity, version: TLS1_2_VERSION)
    }

    /// Sets up an `SSL_CTX` for `role`, speaking exactly protocol `version`.
    private init(role: Role, identity: Identity?, version: Int32) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(role == .server ? TLS_server_method() : TLS_client_method()) else {
            throw TLSContext.failure("creating a TLS context", "SSL_CTX_new failed")
        }
        self.pointer = context
        self.role = role
        self.identity = identity

        guard CShareOpenSSL_SSL_CTX_set_min_proto_version(context, version) == 1,
            CShareOpenSSL_SSL_CTX_set_max_proto_version(context, version) == 1
        else {
            throw TLSContext.failure("restricting the TLS version", "SSL_CTX_set_min/max_proto_version failed")
        }

        // No resumption: every connection verifies the peer's certificate in full.
        SSL_CTX_set_options(context, CShareOpenSSL_SSL_OP_NO_TICKET() | CShareOpenSSL_SSL_OP_NO_RENEGOTIATION())
        _ = CShareOpenSSL_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_OFF))
        guard SSL_CTX_set_num_tickets(context, 0) == 1 else {
            throw TLSContext.failure("turning off session tickets", "SSL_CTX_set_num_tickets failed")
        }

        let mode = role == .server ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT : SSL_VERIFY_PEER
        SSL_CTX_set_verify(context, mode, verifyPeerCertificate)

        // Large reads: fetch whatever has arrived (up to readBufferLength) with each recv.
        _ = CShareOpenSSL_SSL_CTX_set_read_ahead(context, 1)
        SSL_CTX_set_default_read_buffer_len(context, TLSContext.readBufferLength)

        if let identity {
            guard SSL_CTX_use_certificate(context, identity.certificate.pointer) == 1,
                SSL_CTX_use_PrivateKey(context, identity.key.pointer) == 1,
                SSL_CTX_check_private_key(context) == 1
            else {
                throw TLSContext.failure("loading this node's certificate and key", "SSL_CTX_use_certificate failed")
            }
        }
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    private static func failure(_ operation: String, _ fallback: String) -> TLSError {
        .openSSL(operation: operation, reasons: OpenSSLErrorQueue.drainTexts(fallback: fallback))
    }
}
