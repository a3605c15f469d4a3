#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection carrying plain bytes: HTTP for a browser, which refuses the self-signed
/// certificates of LocalSend's HTTPS. Owns its socket.
public final class PlainStream: ByteStream {
    private let socket: TCPSocket
    public var endpoint: String { socket.remoteDescription }

    /// Takes over an accepted socket.
    public init(socket: TCPSocket) {
        self.socket = socket
    }

    deinit { close() }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> Int {
        while true {
            let count = recv(socket.descriptor, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: throw .timedOut(endpoint: endpoint, operation: "reading")
            case ECONNRESET, EPIPE, ENOTCONN: throw .closed(endpoint: endpoint)
            case let code: throw .socket(operation: "reading from", endpoint: endpoint, errno: code)
            }
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        var offset = 0
        while offset < bytes.count {
            let count = send(socket.descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if count >= 0 {
                offset += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: throw .timedOut(endpoint: endpoint, operation: "writing")
            case ECONNRESET, EPIPE, ENOTCONN: throw .closed(endpoint: endpoint)
            case let code: throw .socket(operation: "writing to", endpoint: endpoint, errno: code)
            }
        }
    }

    public func setTimeouts(receive: Duration?, send: Duration?) {
        socket.setTimeouts(receive: receive, send: send)
    }

    public func waitReadable(orWake wakes: [WakeSignal], timeout: Duration?) -> TCPSocket.Readiness {
        socket.waitReadable(orWake: wakes, timeout: timeout)
    }

    public func interrupt() { socket.shutdown() }

    public func close() { socket.close() }
}
