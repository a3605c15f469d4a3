/// The entries of an offer, stored compactly: one fixed-size record per entry and every path, link
/// target, type identifier and note in one shared byte buffer.
///
/// A ``ManifestEntry`` holds its path as a `String`, which for any path longer than 15 bytes is a
/// heap object of its own (about 32 bytes of header and allocator rounding on top of the text); a
/// million of them would cost more than the entries' own text. Here an entry costs
/// ``recordSize`` bytes plus its text, whatever its kind (docs/PERFORMANCE.md, "Offers of a million
/// entries"). Elements are ``ManifestEntry`` values made when read, so the collection reads like an
/// array of entries; the `path(at:)`, `kind(at:)` and `size(at:)` accessors answer without making
/// one.
///
/// A slice made by ``window(_:)`` shares the storage (the sender's OFFER and ENTRIES frames are
/// windows of its manifest's entries, not copies).
public struct ManifestEntries: Sendable, RandomAccessCollection, ExpressibleByArrayLiteral, Hashable {
    struct Record: Sendable {
        var size: UInt64
        var seconds: Int64
        var textStart: Int
        var pathLength: UInt32
        var targetLength: UInt32
        var typeLength: UInt32
        var contentLength: UInt32
        var nanoseconds: UInt32
        var mode: UInt16
        var kind: EntryKind

        var textEnd: Int {
            textStart + Int(pathLength) + Int(targetLength) + Int(typeLength) + Int(contentLength)
        }
    }

    /// Bytes one entry takes besides its text (path, link target, type identifier, note content).
    public static var recordSize: Int { MemoryLayout<Record>.stride }

    private var records: [Record] = []
    private var text: [UInt8] = []
    /// The records this value covers (all of them, except in a ``window(_:)``).
    private var bounds: Range<Int> = 0..<0
    /// The sum of the entries' ``ManifestEntry/encodedSize``.
    public private(set) var encodedSize = 0

    /// No entries.
    public init() {}

    /// The entries of `entries`, in order.
    public init(_ entries: some Sequence<ManifestEntry>) {
        for entry in entries { append(entry) }
    }

    public init(arrayLiteral elements: ManifestEntry...) { self.init(elements) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { bounds.count }

    /// Entry `index`, made from its record and text.
    public subscript(index: Int) -> ManifestEntry {
        let record = records[bounds.lowerBound + index]
        var start = record.textStart
        let path = string(start, Int(record.pathLength))
        start += Int(record.pathLength)
        let target = string(start, Int(record.targetLength))
        start += Int(record.targetLength)
        let type = string(start, Int(record.typeLength))
        start += Int(record.typeLength)
        let content = record.contentLength == 0 ? [] : Array(text[start..<(start + Int(record.contentLength))])
        return ManifestEntry(
            kind: record.kind, path: path, mode: record.mode, modificationSeconds: record.seconds,
            modificationNanoseconds: record.nanoseconds, size: record.size, linkTarget: target, declaredType: type,
            content: content)
    }

    /// The kind of entry `index`.
    public func kind(at index: Int) -> EntryKind { records[bounds.lowerBound + index].kind }

    /// The size of entry `index` (0 for folders and links).
    public func size(at index: Int) -> UInt64 { records[bounds.lowerBound + index].size }

    /// The path of entry `index`.
    public func path(at index: Int) -> String {
        let record = records[bounds.lowerBound + index]
        return string(record.textStart, Int(record.pathLength))
    }

    /// Calls `body` with the UTF-8 bytes of entry `index`'s path, without making a `String`.
    public func withPathBytes<Result>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows
        -> Result
    {
        let record = records[bounds.lowerBound + index]
        return try text.withUnsafeBufferPointer { buffer in
            try body(UnsafeBufferPointer(rebasing: buffer[record.textStart..<(record.textStart + Int(record.pathLength))]))
        }
    }

    /// The entries `range` (indices of this value), sharing this value's storage.
    public func window(_ range: Range<Int>) -> ManifestEntries {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "window out of bounds")
        var window = self
        window.bounds = (bounds.lowerBound + range.lowerBound)..<(bounds.lowerBound + range.upperBound)
        window.encodedSize = range.reduce(0) { $0 + encodedSize(at: $1) }
        return window
    }

    /// The bytes entry `index` takes in an OFFER or ENTRIES frame (``ManifestEntry/encodedSize``).
    public func encodedSize(at index: Int) -> Int {
        let record = records[bounds.lowerBound + index]
        return ManifestEntry.fixedEncodedSize + Int(record.pathLength) + Int(record.targetLength)
            + Int(record.typeLength) + (record.kind == .note ? Int(record.contentLength) : 0)
    }

    /// Appends `entry`.
    public mutating func append(_ entry: ManifestEntry) {
        makeWhole()
        let start = text.count
        text.append(contentsOf: entry.path.utf8)
        text.append(contentsOf: entry.linkTarget.utf8)
        text.append(contentsOf: entry.declaredType.utf8)
        text.append(contentsOf: entry.content)
        records.append(
            Record(
                size: entry.size, seconds: entry.modificationSeconds, textStart: start,
                pathLength: UInt32(entry.path.utf8.count), targetLength: UInt32(entry.linkTarget.utf8.count),
                typeLength: UInt32(entry.declaredType.utf8.count), contentLength: UInt32(entry.content.count),
                nanoseconds: entry.modificationNanoseconds, mode: entry.mode, kind: entry.kind))
        bounds = 0..<records.count
        encodedSize += entry.encodedSize
    }

    /// Appends every entry of `other`, copying records and text (no `String` is made).
    public mutating func append(contentsOf other: ManifestEntries) {
        makeWhole()
        records.reserveCapacity(records.count + other.count)
        for index in other.bounds {
            var record = other.records[index]
            let start = text.count
            text.append(contentsOf: other.text[record.textStart..<record.textEnd])
            record.textStart = start
            records.append(record)
        }
        bounds = 0..<records.count
        encodedSize += other.encodedSize
    }

    /// Reserves room for `count` entries in all (records only; text grows as it comes).
    public mutating func reserveCapacity(_ count: Int) {
        makeWhole()
        records.reserveCapacity(count)
    }

    /// Makes a window own exactly its entries before it changes.
    private mutating func makeWhole() {
        guard bounds != records.indices else { return }
        var whole = ManifestEntries()
        whole.append(contentsOf: self)
        self = whole
    }

    private func string(_ start: Int, _ length: Int) -> String {
        if length == 0 { return "" }
        return text.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<(start + length)]), as: UTF8.self)
        }
    }

    public static func == (lhs: ManifestEntries, rhs: ManifestEntries) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for entry in self { hasher.combine(entry) }
    }
}
