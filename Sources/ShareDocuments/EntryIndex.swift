/// A set of entries of a ``ManifestEntries`` found by a key made from their paths: an open-addressing
/// hash table of entry numbers, 8 bytes a slot and at least two slots an entry (16 MiB for a million
/// entries), instead of a `Set` of the paths themselves.
///
/// Two entries are the same key when `equal` says so; the hash only chooses where to look (and its
/// high 32 bits, kept beside the entry number, spare most calls of `equal`), so a hash collision
/// never makes two different paths equal.
struct EntryIndex {
    /// Per slot: the hash's high 32 bits, then entry number + 1 in the low 32 bits; 0 is empty.
    private var slots: [UInt64]
    private let mask: Int

    /// A table for up to `capacity` entries.
    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
    }

    /// The entry already in the table that `equal` matches, having the same `hash`; nil when none.
    func find(hash: Int, equal: (Int) -> Bool) -> Int? {
        let tag = Self.tag(hash)
        var slot = hash & mask
        while slots[slot] != 0 {
            if slots[slot] >> 32 == tag {
                let entry = Int(slots[slot] & 0xFFFF_FFFF) - 1
                if equal(entry) { return entry }
            }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Adds `entry` under `hash`; the caller checked with ``find(hash:equal:)`` that it is new.
    mutating func insert(_ entry: Int, hash: Int) {
        var slot = hash & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Self.tag(hash) << 32 | UInt64(entry + 1)
    }

    private static func tag(_ hash: Int) -> UInt64 { UInt64(UInt(bitPattern: hash) >> 32) & 0xFFFF_FFFF }

    /// A hash of `bytes`, spread so the low bits (the slot) depend on every byte.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        return hasher.finalize()
    }

    /// A hash of `text` under `String` equality (canonically equivalent spellings hash alike).
    static func hash(_ text: String) -> Int { text.hashValue }
}
