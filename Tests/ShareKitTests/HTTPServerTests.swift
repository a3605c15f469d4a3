import Foundation
import Testing
import ShareTransport
import Synchronization

@testable import ShareKit

/// The small HTTP server LocalSend receiving and `--link` stand on: bounded headers, bodies read whole or
/// streamed (also the bytes that came with the headers), answers that close the connection.
@Suite("HTTP server", .serialized)
struct HTTPServerTests {
    /// Runs a plain-HTTP server with `handler`, sends `request` raw, and returns the whole answer.
    private func exchange(
        _ request: [UInt8], headerDeadline: Duration = .seconds(5), handler: @escaping @Sendable (HTTPExchange) -> Void
    ) async throws -> String {
        let server = try HTTPServer(port: 0, tls: nil, headerDeadline: headerDeadline)
        let port = server.port
        let running = Task.detached { server.run(handler) }
        defer {
            server.stop()
            running.cancel()
        }
        return try await Task.detached {
            let socket = try TCPSocket.connect(to: Endpoint(host: "127.0.0.1", port: port), timeout: .seconds(5))
            let stream = PlainStream(socket: socket)
            stream.setTimeouts(receive: .seconds(10), send: .seconds(10))
            try request.withUnsafeBytes { try stream.write($0) }
            var answer: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
                if count == 0 { break }
                answer += buffer[0..<count]
            }
            return String(decoding: answer, as: UTF8.self)
        }.value
    }

    @Test("a body is read whole, the bytes that came with the headers first, and the answer closes the connection")
    func bodyReadWhole() async throws {
        let body = String(repeating: "0123456789", count: 50_000)
        let request = Array("POST /api/x?sessionId=a%20b&fileId=7 HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
        let answer = try await exchange(request) { exchange in
            let received = (try? exchange.readBody(limit: 1 << 20)) ?? []
            let same = received == Array(body.utf8)
            exchange.respond(200, text: "\(exchange.path) \(exchange.query("sessionId") ?? "-") \(exchange.peerAddress) \(same)")
        }
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(answer.contains("Connection: close\r\n"))
        #expect(answer.hasSuffix("/api/x a b 127.0.0.1 true\n"))
    }

    @Test("a body longer than the reader takes is refused before it is read; a body cut short is an error")
    func boundedBodies() async throws {
        let long = try await exchange(Array("POST / HTTP/1.1\r\nContent-Length: 5000000\r\n\r\nabc".utf8)) { exchange in
            do {
                _ = try exchange.readBody(limit: 1000)
                exchange.respond(200, text: "read")
            } catch {
                exchange.respond(413, text: "\(error)")
            }
        }
        #expect(long.hasPrefix("HTTP/1.1 413 "))
        #expect(long.contains("longer than the 1000 bytes"))

        let outcome = Mutex<String>("")
        let request = Array("POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\nonly some".utf8)
        let server = try HTTPServer(port: 0, tls: nil)
        let port = server.port
        let running = Task.detached {
            server.run { exchange in
                do {
                    _ = try exchange.streamBody { _ in true }
                    outcome.withLock { $0 = "whole" }
                } catch {
                    outcome.withLock { $0 = "\(error)" }
                }
            }
        }
        defer {
            server.stop()
            running.cancel()
        }
        try await Task.detached {
            let socket = try TCPSocket.connect(to: Endpoint(host: "127.0.0.1", port: port), timeout: .seconds(5))
            try request.withUnsafeBytes { try PlainStream(socket: socket).write($0) }
            socket.shutdownWrite()
            usleep(500_000)
            socket.close()
        }.value
        for _ in 0..<100 where outcome.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(outcome.withLock { $0 } == "the connection ended after 9 bytes of the body, before all it declared")
    }

    @Test("headers over the limit get 431, garbage 400, and a peer that sends nothing is dropped after the deadline")
    func badRequests() async throws {
        let huge = "GET / HTTP/1.1\r\nX-Pad: \(String(repeating: "a", count: 20_000))\r\n\r\n"
        let tooLong = try await exchange(Array(huge.utf8)) { $0.respond(200, text: "served") }
        #expect(tooLong.hasPrefix("HTTP/1.1 431 "))
        let garbage = try await exchange(Array("\u{1}\u{2} nonsense\r\n\r\n".utf8)) { $0.respond(200, text: "served") }
        #expect(garbage.hasPrefix("HTTP/1.1 400 "))
        let silent = try await exchange(Array("GET / HTTP/1.1\r\n".utf8), headerDeadline: .milliseconds(300)) {
            $0.respond(200, text: "served")
        }
        #expect(silent.isEmpty)
    }
}
