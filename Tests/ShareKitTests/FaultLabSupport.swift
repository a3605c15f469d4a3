import Foundation
import ShareKit
import ShareTestSupport
import ShareWire
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Deterministic test bytes.
enum FaultLabBytes {
    static func make(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var bytes = [UInt8](repeating: 0, count: (count + 7) / 8 * 8)
        bytes.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for index in words.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                words[index] = state
            }
        }
        return Array(bytes.prefix(count))
    }
}

/// What one side of a plain TCP connection read until the end: the bytes, and the errno that ended
/// it (nil: a clean end of stream).
struct ReadOutcome: Sendable {
    var bytes: [UInt8] = []
    var error: Int32?
}

/// Reads a connected blocking socket to its end on a thread of its own, while another thread writes
/// `send` to it and then ends its side (shutdown SHUT_WR).
final class SocketWorker: Sendable {
    private let result = Mutex<ReadOutcome?>(nil)
    private let fd: Int32

    init(fd: Int32, send bytes: [UInt8]) {
        self.fd = fd
        Thread.detachNewThread { [self] in
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes {
                    Glibc.send(self.fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { break }
                offset += written
            }
            shutdown(self.fd, Int32(SHUT_WR))
        }
        Thread.detachNewThread { [self] in
            var outcome = ReadOutcome()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count < 0 { outcome.error = errno }
                guard count > 0 else { break }
                outcome.bytes += buffer[0..<count]
            }
            result.withLock { $0 = outcome }
        }
    }

    /// Waits (at most 30 seconds) for the end of what the peer sends.
    func finish() async throws -> ReadOutcome {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let outcome = result.withLock({ $0 }) { return outcome }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw HarnessError(description: "the connection did not end within 30 seconds")
    }

    deinit { close(fd) }
}

/// A plain TCP server on 127.0.0.1 for one connection: it writes `reply`, and reads to the end.
final class ByteServer: Sendable {
    let port: Int
    private let worker = Mutex<SocketWorker?>(nil)
    private let listener: Int32

    init(reply: [UInt8] = []) throws {
        let (fd, port) = try LoopbackListener.listeningSocket()
        listener = fd
        self.port = port
        Thread.detachNewThread { [self] in
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            worker.withLock { $0 = SocketWorker(fd: connection, send: reply) }
        }
    }

    /// What arrived on the one connection, once it ended.
    func finish() async throws -> ReadOutcome {
        let deadline = ContinuousClock.now + .seconds(30)
        while worker.withLock({ $0 }) == nil {
            guard ContinuousClock.now < deadline else { throw HarnessError(description: "nobody connected") }
            try await Task.sleep(for: .milliseconds(5))
        }
        return try await worker.withLock { $0! }.finish()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

/// A plain TCP client of 127.0.0.1:`port` that writes `send`, ends its side, and reads to the end.
enum ByteClient {
    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw HarnessError(description: "cannot connect to port \(port): \(reason)")
        }
        return fd
    }

    static func start(port: Int, send: [UInt8]) throws -> SocketWorker {
        SocketWorker(fd: try connect(port: port), send: send)
    }
}

extension ReceiverHarness {
    /// Why the next transfer failed; nil when the next outcome (within 30 seconds) is not a failure.
    func nextFailure() async -> TransferFailure? {
        guard case .failed(_, _, _, let failure, _) = await nextOutcome(timeout: .seconds(30)) else { return nil }
        return failure
    }
}
