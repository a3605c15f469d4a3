import Foundation
import ShareTransport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `TCPSocket.unacknowledgedBytes` on a real loopback connection: what the adaptive compression
/// level reads after each write to tell a link that takes everything from one that holds data back.
@Suite struct UnacknowledgedBytesTests {
    @Test func bytesThePeerCannotTakeAreCountedUntilItReadsThem() throws {
        let listener = try TCPListener(port: 0)
        defer { listener.stop() }
        let client = try TCPSocket.connect(to: Endpoint(host: "127.0.0.1", port: listener.port), timeout: .seconds(10))
        let server = try #require(try listener.accept())
        #expect(client.unacknowledgedBytes == 0)

        // The server reads nothing: once its receive buffer is full, the rest stays in the
        // client's send queue, unacknowledged.
        _ = fcntl(client.descriptor, F_SETFL, fcntl(client.descriptor, F_GETFL) | O_NONBLOCK)
        let chunk = [UInt8](repeating: 0x5A, count: 64 << 10)
        var written = 0
        while written < 256 << 20 {
            let count = chunk.withUnsafeBytes { write(client.descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                #expect(errno == EAGAIN)
                break
            }
            written += count
        }
        let held = try #require(client.unacknowledgedBytes)
        #expect(held > 0 && held <= written, "unacknowledged \(held) of \(written) bytes written")

        // Once the server has read every byte, the queue empties.
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var read = 0
        while read < written {
            #expect(server.waitReadable(timeout: .seconds(30)))
            let count = buffer.withUnsafeMutableBytes { Glibc.read(server.descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            read += count
        }
        #expect(read == written)
        let deadline = ContinuousClock.now + .seconds(30)
        while client.unacknowledgedBytes != 0 && ContinuousClock.now < deadline { usleep(1000) }
        #expect(client.unacknowledgedBytes == 0)
    }
}
