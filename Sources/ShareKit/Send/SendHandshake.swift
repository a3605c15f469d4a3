import ShareSystem
import ShareTLS
import ShareTransport
import ShareWire

/// The first stage of a send: connects over TLS to the first address that answers, checks the
/// receiver's key before anything is sent, and says what this side's HELLO announces.
enum SendHandshake {
    /// Connects over TLS to the first of `endpoints` that answers and checks the receiver's key
    /// before anything is sent; returns the connection, the options with this side's fingerprint
    /// filled in, and the trust store the checks used.
    static func open(
        _ endpoints: [Endpoint], identity: Identity, options: SendOptions
    ) throws(SendError) -> (SecureConnection, SendOptions, TrustStore) {
        ProcessSignals.ignoreBrokenPipes()
        if options.cancellation?.isCancelled == true { throw .cancelled(receiverTold: nil) }
        var trust = TrustStore()
        if let directory = options.configDirectory {
            do {
                trust = try TrustStore.load(from: directory)
            } catch {
                throw .trustStore(error.description)
            }
        }
        let context: TLSContext
        do {
            context = try TLSContext.client(identity: identity, anchors: options.trustAnchors)
        } catch {
            throw .identity("cannot set up TLS: \(error)")
        }
        let connection: SecureConnection
        do {
            connection = try SecureConnection.connect(
                toFirstOf: endpoints, context: context, connectTimeout: options.connectTimeout)
        } catch {
            throw .transport(error)
        }
        connection.rateLimit = options.rateLimit.map { RateLimiter(bytesPerSecond: $0) }
        // Keys first: nothing leaves this side before the receiver's key passed (PROTOCOL.md §1).
        if let expected = options.expectedKey, !expected.matches(connection.peerFingerprint) {
            try? connection.send(.error(PeerError(.identityChanged, "the sender expected another key and sent nothing")))
            connection.close()
            throw .identityMismatch(endpoint: connection.endpoint, expected: expected, actual: connection.peerFingerprint)
        }
        var options = options
        options.localFingerprint = identity.fingerprint
        return (connection, options, trust)
    }

    static func close(_ connection: SecureConnection, options: SendOptions) {
        connection.close()
    }

    /// This side's HELLO: whether a person here is attended and compares the code (a pairing
    /// always does; a send does when the receiver is neither pinned nor vouched for by a team CA).
    static func hello(options: SendOptions, isPairing: Bool, pinned: Bool, over connection: SecureConnection) -> Hello {
        var flags: HelloFlags = []
        if options.interaction != nil {
            flags.insert(.attended)
            if isPairing || (!pinned && connection.peerTrustedBy == nil) { flags.insert(.compare) }
        }
        let features: HelloFeatures = [.resume, options.compression.helloFeatures]
        return Hello(name: options.deviceName, features: features, flags: flags)
    }
}
