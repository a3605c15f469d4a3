public import ShareTLS

/// A TLS connection carrying plain bytes (an HTTPS request and its answer), over one TCP connection;
/// owns both. Used for LocalSend: as a client, whose servers present self-signed certificates that the
/// caller pins by their fingerprint before it writes a byte; as a server, for senders that present none.
public final class TLSStream: ByteStream {
    private let socket: TCPSocket
    private let tls: TLSConnection
    /// `address:port` of the peer.
    public let endpoint: String

    /// Connects to `endpoint` and completes the handshake as a client with `context`, within `timeout`.
    public static func connect(to endpoint: Endpoint, context: TLSContext, timeout: Duration) throws(TransportError) -> TLSStream {
        let socket = try TCPSocket.connect(to: endpoint, timeout: timeout)
        return try handshake(on: socket, context: context, timeout: timeout, label: endpoint.description)
    }

    /// Completes the handshake as a server with `context` on an accepted `socket` (taken over: closed
    /// on failure), within `timeout`.
    public static func accept(_ socket: TCPSocket, context: TLSContext, timeout: Duration) throws(TransportError) -> TLSStream {
        try handshake(on: socket, context: context, timeout: timeout, label: socket.remoteDescription)
    }

    /// Runs the handshake of `context`'s role on `socket` (closed on failure), within `timeout`.
    private static func handshake(
        on socket: TCPSocket, context: TLSContext, timeout: Duration, label: String
    ) throws(TransportError) -> TLSStream {
        socket.setTimeouts(receive: timeout, send: timeout)
        do {
            let tls = try TLSConnection(context: context, socket: socket.descriptor)
            try tls.handshake()
            return TLSStream(socket: socket, tls: tls, endpoint: label)
        } catch {
            socket.close()
            switch error {
            case .connectionClosed, .connectionReset: throw .closedDuringHandshake(endpoint: label)
            default: throw .tls(endpoint: label, error)
            }
        }
    }

    private init(socket: TCPSocket, tls: TLSConnection, endpoint: String) {
        self.socket = socket
        self.tls = tls
        self.endpoint = endpoint
    }

    deinit { close() }

    /// The certificate the peer presented, as PEM (nil if it presented none).
    public var peerCertificatePEM: String? { tls.peerCertificatePEM }

    /// Sets the read and write timeouts for what follows (nil: none).
    public func setTimeouts(receive: Duration?, send: Duration?) {
        socket.setTimeouts(receive: receive, send: send)
    }

    /// Sends all of `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        do {
            try tls.write(bytes)
        } catch {
            throw .tls(endpoint: endpoint, error)
        }
    }

    /// Reads what has arrived (at least one byte); 0 when the peer ended the stream.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> Int {
        do {
            return try tls.read(into: buffer)
        } catch .connectionClosed {
            // Servers often close without close_notify after an answer: the end of the stream.
            return 0
        } catch {
            throw .tls(endpoint: endpoint, error)
        }
    }

    /// Wakes a read or write in progress on another thread (it then fails); ``close()`` after.
    public func waitReadable(orWake wakes: [WakeSignal], timeout: Duration?) -> TCPSocket.Readiness {
        socket.waitReadable(orWake: wakes, timeout: timeout)
    }

    public func interrupt() { socket.shutdown() }

    /// Ends the connection.
    public func close() {
        tls.close()
        socket.close()
    }
}
