import Foundation
import ShareHTTP
public import ShareTLS
import ShareTransport
import Synchronization

/// A small HTTP/1.1 server for LocalSend: HTTPS for LocalSend senders (``TLSContext/serverForAnyClient(identity:)``)
/// or plain HTTP for a browser. Each connection runs on its own thread and carries one request
/// (answers say `Connection: close`); connections beyond ``maxConnections`` are closed at once, and
/// a peer gets ``headerDeadline`` for its TLS handshake and request headers together.
final class HTTPServer: Sendable {
    /// The port it listens on (the one picked, when asked for port 0).
    var port: UInt16 { listener.port }
    /// Connections served at once.
    let maxConnections: Int
    /// How long a peer has from connecting until its request's headers have all arrived.
    let headerDeadline: Duration
    private let listener: TCPListener
    private let tls: TLSContext?
    private let open = Mutex<(next: Int, streams: [Int: StreamBox])>((0, [:]))
    private let finishedAll = DispatchGroup()

    /// Binds `port` (0: a free one) on every interface; `tls`: HTTPS with that context, nil: plain HTTP.
    ///
    /// - Throws: ``TransportError/cannotListen(port:errno:)``.
    init(port: UInt16, tls: TLSContext?, maxConnections: Int = 32, headerDeadline: Duration = .seconds(10)) throws(TransportError) {
        listener = try TCPListener(port: port)
        self.tls = tls
        self.maxConnections = maxConnections
        self.headerDeadline = headerDeadline
    }

    /// Accepts connections until ``stop()`` and hands each request to `handler` on the connection's
    /// own thread; blocks the calling thread. The handler answers through the exchange; one that
    /// does not is answered 500.
    func run(_ handler: @escaping @Sendable (HTTPExchange) -> Void) {
        while true {
            let socket: TCPSocket?
            do {
                socket = try listener.accept()
            } catch {
                continue
            }
            guard let socket else { break }
            let id: Int? = open.withLock { open in
                guard open.streams.count < maxConnections else { return nil }
                open.next += 1
                return open.next
            }
            guard let id else {
                socket.close()
                continue
            }
            finishedAll.enter()
            BlockingWork.start("share.http") { [self] in
                defer { finishedAll.leave() }
                serve(socket, id: id, handler)
            }
        }
    }

    private func serve(_ socket: TCPSocket, id: Int, _ handler: @Sendable (HTTPExchange) -> Void) {
        let deadline = ContinuousClock.now + headerDeadline
        let stream: any ByteStream
        do {
            stream = try tls.map { context throws(TransportError) in try TLSStream.accept(socket, context: context, timeout: headerDeadline) }
                ?? PlainStream(socket: socket)
        } catch {
            return
        }
        open.withLock { $0.streams[id] = StreamBox(stream: stream) }
        defer {
            open.withLock { _ = $0.streams.removeValue(forKey: id) }
            stream.close()
        }
        guard let exchange = HTTPExchange.read(from: stream, deadline: deadline) else { return }
        handler(exchange)
        if !exchange.answered { exchange.respond(500, text: "the server did not answer this request") }
        exchange.discardUnreadBody()
    }

    /// Stops accepting; connections still in progress get `grace` to answer (a refusal being sent, the
    /// end of an answer), then are interrupted. Returns at once.
    func stop(grace: Duration = .seconds(1)) {
        listener.stop()
        BlockingWork.start("share.http-stop") { [self] in
            let seconds = Double(grace.components.seconds) + Double(grace.components.attoseconds) / 1e18
            if finishedAll.wait(timeout: .now() + seconds) == .success { return }
            for box in open.withLock({ Array($0.streams.values) }) { box.stream.interrupt() }
        }
    }

    /// Waits until every connection's thread has ended (after ``stop()``).
    func waitForConnections() {
        finishedAll.wait()
    }
}

/// A stream held so ``HTTPServer/stop()`` can interrupt it from another thread: ``ByteStream/interrupt()``
/// only shuts the socket down, which is safe from any thread, and the stream is closed only after it
/// left the table.
private struct StreamBox: @unchecked Sendable {
    let stream: any ByteStream
}
