import Foundation
import ShareDocuments
import ShareWire
import Testing

/// Byte-exact encodings of every frame type, read from docs/PROTOCOL.md Appendix A. If one of
/// these changes, the wire format changed: update PROTOCOL.md and the protocol version with it.
@Suite struct GoldenVectorTests {
    static let digest = Array(UInt8(0)..<32)

    static let aTxt = ManifestEntry(
        kind: .file, path: "a.txt", mode: 0o644, modificationSeconds: 1_700_000_000, modificationNanoseconds: 5,
        size: 3, declaredType: "public.plain-text")
    static let bundle = ManifestEntry(kind: .directory, path: "B.sbz", mode: 0o755, modificationSeconds: -1)
    static let link = ManifestEntry(kind: .symlink, path: "B.sbz/l", mode: 0o777, linkTarget: ".")
    static let note = ManifestEntry.note(name: "Note.txt", text: "hi")

    /// The frame each vector of the appendix stands for, by the title line before it.
    static let frames: [(String, Frame)] = [
        ("HELLO from a sender", .hello(Hello(name: "alice", features: [.zstd, .resume], flags: [.attended, .compare]))),
        ("HELLO from a receiver", .hello(Hello(name: "desk #2", features: [.zstd, .resume], flags: [.decided]))),
        ("OFFER of 4 entries", .offer(OfferStart(entryCount: 4, totalBytes: 5), entries: [aTxt, bundle])),
        ("ENTRIES with the last two", .entries([link, note])),
        ("PAIR", .pair),
        ("VERIFY, confirmed", .verify(.confirmed)),
        ("DECISION accepting", .decision(Decision(.accepted, haveCount: 2))),
        ("DECISION busy", .decision(Decision(.busy, message: "busy"))),
        ("HAVE", .have([HaveRecord(fileIndex: 0, offset: 2, sha256: digest)])),
        ("DATA, raw", .data(DataChunk(fileIndex: 2, offset: 1 << 32, bytes: [0xAA, 0xBB]))),
        (
            "DATA, zstd",
            .data(
                DataChunk(
                    fileIndex: 1, offset: 64, encoding: .zstd(rawLength: 64),
                    bytes: hex("28b52ffd20403d000008610100948010")))
        ),
        ("FILE_END", .fileEnd(fileIndex: 1, sha256: digest)),
        ("RECEIPT", .receipt(Receipt(items: [ReceiptItem(.placed, "~/x"), ReceiptItem(.keptInInbox, "no app")]))),
        ("ERROR hashMismatch", .error(PeerError(.hashMismatch, "bad"))),
        ("ERROR busy", .error(PeerError(.busy, "full"))),
    ]

    /// docs/PROTOCOL.md.
    static let protocolText: String = {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return (try? String(contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)) ?? ""
    }()

    /// The vectors of docs/PROTOCOL.md Appendix A: title line, then hex lines up to a blank line.
    static let documented: [(title: String, bytes: [UInt8])] = {
        let text = protocolText
        guard let appendix = text.range(of: "## Appendix A. Golden vectors") else { return [] }
        let block = text[appendix.upperBound...].components(separatedBy: "```")
        guard block.count >= 2 else { return [] }
        var vectors: [(String, [UInt8])] = []
        var title = ""
        var bytes = ""
        let lines = block[1].split(separator: "\n", omittingEmptySubsequences: false).map(String.init) + [""]
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty {
                if !title.isEmpty { vectors.append((title, hex(bytes))) }
                title = ""
                bytes = ""
            } else if trimmed.allSatisfy({ $0.isHexDigit || $0 == " " }) && !title.isEmpty && title.hasSuffix(":") {
                bytes += " " + trimmed
            } else {
                title += title.isEmpty ? trimmed : " " + trimmed
            }
        }
        return vectors
    }()

    @Test func everyFrameTypeHasADocumentedVector() {
        #expect(Set(Self.frames.map(\.1.type)) == Set(FrameType.allCases))
        #expect(Self.documented.count == Self.frames.count, "one vector in the appendix per frame listed here")
        for (name, _) in Self.frames {
            #expect(Self.documented.filter { $0.title.hasPrefix(name) }.count == 1, "\(name) appears once in PROTOCOL.md")
        }
    }

    @Test func encodesEveryFrameExactlyAsDocumented() {
        for (name, frame) in Self.frames {
            guard let vector = Self.documented.first(where: { $0.title.hasPrefix(name) }) else { continue }
            #expect(hexString(FrameEncoder.encode(frame)) == hexString(vector.bytes), "\(name)")
        }
    }

    @Test func decodesEveryDocumentedVectorBack() throws {
        for (name, frame) in Self.frames {
            guard let vector = Self.documented.first(where: { $0.title.hasPrefix(name) }) else { continue }
            var decoder = FrameDecoder()
            decoder.append(contentsOf: vector.bytes)
            #expect(try decoder.next() == frame, "\(name)")
            #expect(try decoder.next() == nil)
            try decoder.finish()
        }
    }

    @Test func theHelloFlagsOfTheTextAreTheOnesTheVectorsAndTheCodeUse() throws {
        // §4 HELLO: the `flags` field and its continuation lines, up to the end of the block.
        let text = Self.protocolText
        let start = try #require(text.range(of: "flags     u8"), "PROTOCOL.md §4 describes HELLO's flags")
        let field = String(text[start.lowerBound...].prefix { $0 != "`" }).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let named: [(String, HelloFlags)] = [("ATTENDED", .attended), ("COMPARE", .compare), ("DECIDED", .decided)]
        for (name, flag) in named {
            let bit = flag.rawValue.trailingZeroBitCount
            #expect(field.contains("bit \(bit) \(name)"), "§4 HELLO names bit \(bit) \(name): \(field)")
        }
        #expect(named.reduce(HelloFlags()) { $0.union($1.1) } == HelloFlags.all, "every flag the code defines is named")
        #expect(Self.documented.contains { $0.title.contains("(flag DECIDED)") }, "Appendix A uses DECIDED")
    }

    @Test func theOfferAndEntriesVectorsAreOneValidOffer() throws {
        let manifest = try Manifest(entries: [Self.aTxt, Self.bundle, Self.link, Self.note], declaredTotal: 5)
        #expect(manifest.items.map(\.name) == ["a.txt", "B.sbz", "Note.txt"])
        #expect(manifest.fileCount == 1, "a note's content travels in the offer, not as DATA")
        let frames = OfferCodec.frames(for: manifest, maxPayload: 0x5f)
        #expect(frames == [Self.frames[2].1, Self.frames[3].1])
    }
}
