// Loopback TCP sockets and threads for the TLS tests.

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A connected loopback TCP pair (127.0.0.1), each end a blocking socket.
struct LoopbackPair: Sendable {
    let client: Int32
    let server: Int32

    /// Connects a new pair through a listener on an ephemeral port. Both ends get a 20 s receive and send
    /// timeout, so a broken test fails instead of hanging.
    static func make() throws -> LoopbackPair {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw SocketError(operation: "socket", code: errno) }
        defer { Glibc.close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 4) == 0 else { throw SocketError(operation: "bind/listen", code: errno) }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard named == 0 else { throw SocketError(operation: "getsockname", code: errno) }

        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard client >= 0 else { throw SocketError(operation: "socket", code: errno) }
        let connected = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
        }
        guard connected == 0 else {
            Glibc.close(client)
            throw SocketError(operation: "connect", code: errno)
        }
        let server = accept(listener, nil, nil)
        guard server >= 0 else {
            Glibc.close(client)
            throw SocketError(operation: "accept", code: errno)
        }
        let pair = LoopbackPair(client: client, server: server)
        setTimeouts(client, seconds: 20)
        setTimeouts(server, seconds: 20)
        return pair
    }
}

/// Sets `SO_RCVTIMEO` and `SO_SNDTIMEO`, as the transport does.
func setTimeouts(_ fd: Int32, seconds: Double) {
    var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
}

/// Sends all of `bytes` on a raw socket (no TLS), without SIGPIPE.
func sendRaw(_ fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
        if n <= 0 { return }
        offset += n
    }
}

/// Reads from a raw socket until EOF, error or timeout; returns what arrived.
@discardableResult
func drainRaw(_ fd: Int32) -> [UInt8] {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { return received }
        received += buffer[0..<n]
    }
}

struct SocketError: Error, CustomStringConvertible {
    let operation: String
    let code: Int32
    var description: String { "\(operation): \(String(cString: strerror(code)))" }
}

/// Runs `body` on a new thread (blocking socket and TLS calls must stay off the cooperative pool) and
/// returns its outcome.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async -> Result<T, any Error> {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: Result { try body() })
        }
        thread.start()
    }
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
