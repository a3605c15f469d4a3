import ShareDocuments
import ShareWire
import Testing

/// Byte-exact encodings of every frame type (docs/PROTOCOL.md). If one of these changes, the wire
/// format changed: update PROTOCOL.md and the protocol version with it.
@Suite struct GoldenVectorTests {
    static let sampleManifest = try! Manifest(entries: [
        ManifestEntry(
            kind: .file, path: "a.txt", mode: 0o644, modificationSeconds: 1_700_000_000, modificationNanoseconds: 5,
            size: 3, declaredType: "public.plain-text"),
        ManifestEntry(kind: .directory, path: "B.sbz", mode: 0o755, modificationSeconds: -1),
        ManifestEntry(kind: .symlink, path: "B.sbz/l", mode: 0o777, linkTarget: "."),
    ])

    static let vectors: [(String, Frame, String)] = [
        ("HELLO", .hello(Hello(name: "desk")), "01 0000000a 53485231 01 04 6465736b"),
        ("DECISION accept", .decision(.accept), "03 00000003 00 0000"),
        ("DECISION decline", .decision(Decision(.declinedByUser, message: "no")), "03 00000005 01 0002 6e6f"),
        ("DATA", .data(fileIndex: 2, bytes: [0xAA, 0xBB]), "04 00000006 00000002 aabb"),
        (
            "FILE_END", .fileEnd(fileIndex: 1, sha256: Array(0..<32)),
            "05 00000024 00000001 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
        ),
        ("RECEIPT", .receipt(Receipt(locations: ["~/x"])), "06 00000009 00000001 0003 7e2f78"),
        ("ERROR", .error(PeerError(.hashMismatch, "bad")), "07 00000007 0005 0003 626164"),
        ("PAIR", .pair, "08 00000000"),
        (
            "OFFER", .offer(sampleManifest),
            """
            02 00000083 00000003 0000000000000003
              01 0005 612e747874 01a4 000000006553f100 00000005 0000000000000003 0000
                 11 7075626c69632e706c61696e2d74657874
              02 0005 422e73627a 01ed ffffffffffffffff 00000000 0000000000000000 0000 00
              03 0007 422e73627a2f6c 01ff 0000000000000000 00000000 0000000000000000 0001 2e 00
            """
        ),
    ]

    @Test func encodesEveryFrameExactly() {
        for (name, frame, expected) in Self.vectors {
            #expect(hexString(FrameEncoder.encode(frame)) == hexString(hex(expected)), "\(name)")
        }
    }

    @Test func decodesEveryVectorBack() throws {
        for (name, frame, bytes) in Self.vectors {
            var decoder = FrameDecoder()
            decoder.append(contentsOf: hex(bytes))
            #expect(try decoder.next() == frame, "\(name)")
            #expect(try decoder.next() == nil)
            try decoder.finish()
        }
    }
}
