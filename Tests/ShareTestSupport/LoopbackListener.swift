import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP listener on 127.0.0.1 that nobody should reach: a test hands its port to something that
/// must not use the network, then asks whether anything connected. The kernel completes a TCP
/// handshake into the backlog without `accept`, so any connection attempt that got through is
/// counted, even one that was closed at once.
public final class LoopbackListener: @unchecked Sendable {
    // @unchecked: the descriptor is set once; accept(2) is safe from any thread.
    /// The listening port.
    public let port: Int
    private let fd: Int32

    /// Listens on an ephemeral port of 127.0.0.1.
    public init() throws {
        (fd, port) = try Self.listeningSocket(flags: Int32(SOCK_NONBLOCK.rawValue))
    }

    /// A TCP socket listening on an ephemeral port of 127.0.0.1 (close-on-exec, plus `flags` such as
    /// SOCK_NONBLOCK), and its port.
    public static func listeningSocket(flags: Int32 = 0) throws -> (descriptor: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | flags, 0)
        guard fd >= 0 else { throw HarnessError(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ready else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw HarnessError(description: "cannot listen on 127.0.0.1: \(reason)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    deinit { close(fd) }

    /// How many connections arrived since the last call (each is closed again at once).
    public func connectionsArrived() -> Int {
        var count = 0
        while true {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return count }
            close(connection)
            count += 1
        }
    }
}
