import ShareDocuments
import ShareWire
import Testing

/// DATA payloads decoded into arrays given back by whoever wrote them.
@Suite struct PayloadBuffersTests {
    private static func dataFrame(_ fill: UInt8) -> [UInt8] {
        var encoded: [UInt8] = []
        let payload = [UInt8](repeating: fill, count: FrameType.maxDataBytes)
        payload.withUnsafeBytes {
            FrameEncoder.appendData(fileIndex: 0, offset: UInt64(fill) << 20, bytes: $0, to: &encoded)
        }
        return encoded
    }

    private static func payload(_ frame: Frame?) -> [UInt8]? {
        guard case .data(let chunk) = frame else { return nil }
        return chunk.bytes
    }

    @Test func aGivenBackArrayCarriesTheNextPayloadAndBytesStillHeldStayAsTheyWere() throws {
        let buffers = PayloadBuffers(limit: 2)
        var decoder = FrameDecoder(capacity: 1 << 21, payloadBuffers: buffers)
        decoder.append(contentsOf: Self.dataFrame(1) + Self.dataFrame(2) + Self.dataFrame(3))
        let first = try #require(Self.payload(try decoder.next()))
        buffers.giveBack(first)
        #expect(buffers.waiting == 1)
        // Someone still holds the first payload: refilling its array must not change what they see.
        let second = try #require(Self.payload(try decoder.next()))
        #expect(buffers.waiting == 0, "the given-back array was taken")
        #expect(first.allSatisfy { $0 == 1 } && first.count == FrameType.maxDataBytes)
        #expect(second.allSatisfy { $0 == 2 } && second.count == FrameType.maxDataBytes)
        buffers.giveBack(second)
        buffers.giveBack([UInt8](repeating: 9, count: 10))
        #expect(buffers.waiting == 1, "an array too small for a payload is not kept")
        let third = try #require(Self.payload(try decoder.next()))
        #expect(third.allSatisfy { $0 == 3 } && third.count == FrameType.maxDataBytes)
        buffers.giveBack(first)
        buffers.giveBack(second)
        buffers.giveBack(third)
        #expect(buffers.waiting == 2, "at most the limit waits")
    }
}
