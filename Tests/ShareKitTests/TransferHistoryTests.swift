import Foundation
import ShareKit
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The history file: appended to, rotated at its bound, readable after damage, never more than two files.
@Suite struct TransferHistoryTests {
    static func record(_ name: String, items: Int = 1, reason: String? = nil) -> TransferRecord {
        TransferRecord(
            direction: .received,
            peer: TransferRecord.Peer(
                name: name, pinnedName: nil, fingerprint: String(repeating: "ab", count: 32), address: "10.0.0.1:47321"),
            outcome: reason == nil ? .completed : .failed, reason: reason,
            items: (0..<items).map {
                TransferRecord.Item(
                    name: "f\($0).txt", bundle: false, bytes: 10, outcome: "receiveFolder", location: "/x/f\($0).txt",
                    reason: nil)
            },
            files: items, bytes: UInt64(items * 10))
    }

    @Test func appendsAndReadsBackOldestFirst() throws {
        let dir = TemporaryDirectory("history-append")
        let history = TransferHistory(directory: dir.at("state/share"))
        #expect(history.append(Self.record("alice")) == nil)
        #expect(history.append(Self.record("bob", reason: "the sender went away")) == nil)
        let (records, unreadable) = try history.records()
        #expect(records.map(\.peer.name) == ["alice", "bob"])
        #expect(records.last?.reason == "the sender went away")
        #expect(unreadable == 0)
        var info = stat()
        #expect(stat(history.path, &info) == 0 && info.st_mode & 0o777 == 0o600, "the history is private")
        #expect(stat(dir.at("state/share"), &info) == 0 && info.st_mode & 0o777 == 0o700)
    }

    @Test func rotatesAtItsBoundAndKeepsTwoFilesAtMost() throws {
        let dir = TemporaryDirectory("history-rotate")
        let history = TransferHistory(directory: dir.path)
        let big = Self.record("peer", items: 60)
        var count = 0
        var size: off_t = 0
        // Enough records for more than two rotations.
        while count < 3 * TransferHistory.fileLimit / 6000 {
            #expect(history.append(big) == nil)
            count += 1
            var info = stat()
            _ = stat(history.path, &info)
            #expect(Int(info.st_size) <= TransferHistory.fileLimit, "never past the bound")
            size = info.st_size
        }
        #expect(size > 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(names == ["history.jsonl", "history.jsonl.1"])
        let (records, _) = try history.records()
        #expect(records.count < count, "the oldest records were dropped")
        let line = try JSONEncoder().encode(big).count + 1
        #expect(records.count >= TransferHistory.fileLimit / line, "at least the last fileLimit bytes are kept")
    }

    @Test func aTornLineIsSkippedAndCounted() throws {
        let dir = TemporaryDirectory("history-torn")
        let history = TransferHistory(directory: dir.path)
        history.append(Self.record("alice"))
        let handle = try #require(FileHandle(forWritingAtPath: history.path))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"time":"2026-"#.utf8))
        try handle.close()
        history.append(Self.record("bob"))
        let (records, unreadable) = try history.records()
        #expect(records.map(\.peer.name) == ["alice", "bob"], "the next record starts on a line of its own")
        #expect(unreadable == 1)
    }

    @Test func aRecordListsAtMostItsItemLimitAndBoundsItsTexts() {
        let record = TransferRecord(
            direction: .sent,
            peer: TransferRecord.Peer(
                name: String(repeating: "n", count: 5000), pinnedName: nil, fingerprint: nil, address: nil),
            outcome: .failed, reason: String(repeating: "r", count: 5000),
            items: (0..<250).map {
                TransferRecord.Item(
                    name: "\($0)", bundle: false, bytes: 1, outcome: "notDelivered", location: nil, reason: nil)
            },
            files: 250, bytes: 250)
        #expect(record.items.count == TransferRecord.itemLimit)
        #expect(record.moreItems == 150)
        #expect(record.peer.name.count == TransferRecord.textLimit + 1)
        #expect(record.reason?.hasSuffix("…") == true)
    }
}
