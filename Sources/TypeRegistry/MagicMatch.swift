/// One `<match>` of a shared-mime-info magic rule, with its nested matches.
///
/// The match holds if, at some offset in ``offsets``, the file's bytes AND ``mask`` equal
/// ``value`` AND ``mask`` — and, when there are ``children``, at least one child holds too
/// (nested matches are AND, siblings are OR). Numeric types are stored as bytes in the byte
/// order the rule names, so every comparison is a byte comparison.
public struct MagicMatch: Hashable, Sendable {
    /// The value types of the specification.
    public enum Kind: String, Hashable, Sendable {
        /// A byte string with C escapes (`\x89PNG`, `\037\213`).
        case string
        /// One byte.
        case byte
        /// 16 bits, big-endian.
        case big16
        /// 32 bits, big-endian.
        case big32
        /// 16 bits, little-endian.
        case little16
        /// 32 bits, little-endian.
        case little32
        /// 16 bits, this machine's byte order.
        case host16
        /// 32 bits, this machine's byte order.
        case host32

        /// The width in bytes of a numeric kind; `nil` for strings.
        var width: Int? {
            switch self {
            case .string: nil
            case .byte: 1
            case .big16, .little16, .host16: 2
            case .big32, .little32, .host32: 4
            }
        }

        /// Whether the value is stored most significant byte first.
        var isBigEndian: Bool {
            switch self {
            case .big16, .big32: true
            case .host16, .host32: 1.bigEndian == 1
            default: false
            }
        }
    }

    /// The value type as declared.
    public let kind: Kind
    /// The first and last offset where the value may start (a single offset is a one-element range).
    public let offsets: ClosedRange<Int>
    /// The bytes to find.
    public let value: [UInt8]
    /// A mask ANDed with both the file's bytes and the value, same length as ``value``.
    public let mask: [UInt8]?
    /// Nested matches, of which one must also hold.
    public let children: [MagicMatch]

    /// Creates a match.
    public init(
        kind: Kind, offsets: ClosedRange<Int>, value: [UInt8], mask: [UInt8]? = nil, children: [MagicMatch] = []
    ) {
        self.kind = kind
        self.offsets = offsets
        self.value = value
        self.mask = mask
        self.children = children
    }

    /// Whether the match (and one of its children, if any) holds for the first bytes of a file.
    public func matches(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { matches($0) }
    }

    private func matches(_ content: UnsafeBufferPointer<UInt8>) -> Bool {
        value.withUnsafeBufferPointer { value in
            func occurs(mask: UnsafeBufferPointer<UInt8>?) -> Bool {
                Self.occurs(
                    in: content, lower: offsets.lowerBound, upper: offsets.upperBound, value: value, mask: mask
                ) { children.isEmpty || children.contains { $0.matches(content) } }
            }
            guard let mask else { return occurs(mask: nil) }
            return mask.withUnsafeBufferPointer { occurs(mask: $0) }
        }
    }

    /// Whether `value` (compared under `mask`, whose missing bytes count as 0xFF) occurs in
    /// `content` at an offset in `lower...upper` at which `andThen` holds too. The one matching
    /// algorithm, for decoded matches and for those read in place from a snapshot.
    static func occurs(
        in content: UnsafeBufferPointer<UInt8>, lower: Int, upper: Int, value: UnsafeBufferPointer<UInt8>,
        mask: UnsafeBufferPointer<UInt8>?, andThen: () -> Bool
    ) -> Bool {
        guard !value.isEmpty else { return false }
        let last = min(upper, content.count - value.count)
        guard lower <= last else { return false }
        for offset in lower...last where bytesMatch(content, at: offset, value: value, mask: mask) {
            if andThen() { return true }
        }
        return false
    }

    private static func bytesMatch(
        _ content: UnsafeBufferPointer<UInt8>, at offset: Int, value: UnsafeBufferPointer<UInt8>,
        mask: UnsafeBufferPointer<UInt8>?
    ) -> Bool {
        if let mask {
            for index in 0..<value.count {
                let bits = index < mask.count ? mask[index] : 0xFF
                if content[offset + index] & bits != value[index] & bits { return false }
            }
        } else {
            for index in 0..<value.count where content[offset + index] != value[index] { return false }
        }
        return true
    }
}
