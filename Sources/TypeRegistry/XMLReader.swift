/// A small pull reader for the XML subset freedesktop MIME packages use.
///
/// It understands elements, attributes, text, CDATA, comments, processing instructions and a
/// DOCTYPE with an internal subset (skipped), and the predefined and numeric entities. It checks
/// that tags nest, and reports malformed input as an ``XMLReaderError`` with a line number.
/// (Foundation's `XMLParser` on Linux crashes on the DTD that `freedesktop.org.xml` carries:
/// an enumerated `<!ATTLIST … (a | b)>` brings it down, so it cannot read files from disk safely.)
struct XMLReader {
    /// One step through the document.
    enum Event {
        /// An opening tag; `isEmpty` for `<tag/>`, which is followed by its own `end` event.
        case start(name: String, attributes: [String: String])
        /// A closing tag (also sent right after an empty element's `start`).
        case end(name: String)
        /// Character data between tags, as a byte range; decode it with ``text(_:)``.
        case text(Range<Int>, isCDATA: Bool)
    }

    /// The deepest nesting accepted.
    static let maximumDepth = 256

    private let bytes: [UInt8]
    private var position = 0
    private var stack: [String] = []
    private var pendingEnd: String?

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    /// The reader's byte offset; turn it into a line with ``line(at:)`` only when needed.
    var offset: Int { position }

    /// The 1-based line of a byte offset, for messages (counts from the start: keep it off hot paths).
    func line(at offset: Int) -> Int {
        var count = 1
        for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A { count += 1 }
        return count
    }

    /// The next event, or `nil` at the end of a well-formed document.
    mutating func next() throws(XMLReaderError) -> Event? {
        if let name = pendingEnd {
            pendingEnd = nil
            stack.removeLast()
            return .end(name: name)
        }
        while position < bytes.count {
            if bytes[position] != UInt8(ascii: "<") {
                let start = position
                position = scan(from: position) { $0 == UInt8(ascii: "<") }
                if stack.isEmpty {
                    guard bytes[start..<position].allSatisfy(Self.isSpace) else {
                        throw error("text outside the root element")
                    }
                    continue
                }
                return .text(start..<position, isCDATA: false)
            }
            if has("<?") {
                try skip(past: "?>")
            } else if has("<!--") {
                try skip(past: "-->")
            } else if has("<![CDATA[") {
                position += 9
                let start = position
                try skip(past: "]]>")
                guard !stack.isEmpty else { throw error("CDATA outside the root element") }
                return .text(start..<(position - 3), isCDATA: true)
            } else if has("<!") {
                try skipDeclaration()
            } else if has("</") {
                position += 2
                let name = readName()
                skipSpaces()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
                    throw error("malformed closing tag </\(name)")
                }
                position += 1
                guard let open = stack.last else { throw error("closing tag </\(name)> without an opening tag") }
                guard open == name else { throw error("closing tag </\(name)> does not match <\(open)>") }
                stack.removeLast()
                return .end(name: name)
            } else {
                return try readStartTag()
            }
        }
        if let open = stack.last { throw error("the document ends inside <\(open)>") }
        return nil
    }

    /// Decodes a text range, resolving entities unless it is CDATA.
    func text(_ range: Range<Int>, isCDATA: Bool) -> String {
        let slice = bytes[range.clamped(to: 0..<bytes.count)]
        return isCDATA ? String(decoding: slice, as: UTF8.self) : Self.decodeEntities(slice)
    }

    // MARK: - Pieces

    private mutating func readStartTag() throws(XMLReaderError) -> Event {
        position += 1
        let name = readName()
        guard !name.isEmpty else { throw error("malformed tag") }
        var attributes: [String: String] = [:]
        while true {
            skipSpaces()
            guard position < bytes.count else { throw error("the document ends inside <\(name)") }
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") {
                position += 1
                try push(name)
                return .start(name: name, attributes: attributes)
            }
            if byte == UInt8(ascii: "/") {
                guard position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: ">") else {
                    throw error("malformed tag <\(name)")
                }
                position += 2
                try push(name)
                pendingEnd = name
                return .start(name: name, attributes: attributes)
            }
            let attribute = readName()
            guard !attribute.isEmpty else { throw error("malformed attribute in <\(name)") }
            skipSpaces()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                throw error("attribute \(attribute) of <\(name)> has no value")
            }
            position += 1
            skipSpaces()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'")
            else {
                throw error("attribute \(attribute) of <\(name)> is not quoted")
            }
            let quote = bytes[position]
            position += 1
            let start = position
            position = scan(from: position) { $0 == quote || $0 == UInt8(ascii: "<") }
            guard position >= bytes.count || bytes[position] == quote else {
                throw error("'<' in attribute \(attribute) of <\(name)>")
            }
            guard position < bytes.count else { throw error("unterminated attribute \(attribute) of <\(name)>") }
            attributes[attribute] = Self.decodeEntities(bytes[start..<position])
            position += 1
        }
    }

    private mutating func push(_ name: String) throws(XMLReaderError) {
        guard stack.count < Self.maximumDepth else { throw error("elements nest deeper than \(Self.maximumDepth)") }
        stack.append(name)
    }

    private mutating func readName() -> String {
        let start = position
        position = scan(from: position) { byte in
            byte <= 0x20 || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// The first index from `start` whose byte satisfies `stop`, or the end.
    /// (Scans through a buffer pointer: much faster than array subscripts in debug builds.)
    private func scan(from start: Int, until stop: (UInt8) -> Bool) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var index = start
            while index < buffer.count && !stop(buffer[index]) { index += 1 }
            return index
        }
    }

    private mutating func skipSpaces() {
        while position < bytes.count && Self.isSpace(bytes[position]) { position += 1 }
    }

    private func has(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return literal.withUTF8Buffer { buffer in
            for index in 0..<count where bytes[position + index] != buffer[index] { return false }
            return true
        }
    }

    private mutating func skip(past terminator: StaticString) throws(XMLReaderError) {
        let first = terminator.utf8Start.pointee
        while position < bytes.count {
            position = scan(from: position) { $0 == first }
            if has(terminator) {
                position += terminator.utf8CodeUnitCount
                return
            }
            if position < bytes.count { position += 1 }
        }
        throw error("unterminated construct (expected \(terminator))")
    }

    /// Skips `<!DOCTYPE …>` including an internal subset with quoted strings and comments.
    private mutating func skipDeclaration() throws(XMLReaderError) {
        position += 2
        var depth = 0
        var quote: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            if let open = quote {
                if byte == open { quote = nil }
            } else if has("<!--") {
                try skip(past: "-->")
                continue
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "]") {
                depth -= 1
            } else if byte == UInt8(ascii: ">") && depth <= 0 {
                position += 1
                return
            }
            position += 1
        }
        throw error("unterminated declaration")
    }

    private func error(_ message: String) -> XMLReaderError {
        XMLReaderError(message: message, line: line(at: position))
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    static func decodeEntities(_ slice: ArraySlice<UInt8>) -> String {
        guard slice.contains(UInt8(ascii: "&")) else { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var index = slice.startIndex
        while index < slice.endIndex {
            let byte = slice[index]
            guard byte == UInt8(ascii: "&"),
                let semicolon = slice[index...].prefix(12).firstIndex(of: UInt8(ascii: ";"))
            else {
                out.append(byte)
                index += 1
                continue
            }
            let name = String(decoding: slice[(index + 1)..<semicolon], as: UTF8.self)
            var replacement: [UInt8]?
            switch name {
            case "lt": replacement = [UInt8(ascii: "<")]
            case "gt": replacement = [UInt8(ascii: ">")]
            case "amp": replacement = [UInt8(ascii: "&")]
            case "quot": replacement = [UInt8(ascii: "\"")]
            case "apos": replacement = [UInt8(ascii: "'")]
            default:
                if name.hasPrefix("#x") || name.hasPrefix("#X"), let value = UInt32(name.dropFirst(2), radix: 16),
                    let scalar = Unicode.Scalar(value)
                {
                    replacement = Array(String(Character(scalar)).utf8)
                } else if name.hasPrefix("#"), let value = UInt32(name.dropFirst(), radix: 10),
                    let scalar = Unicode.Scalar(value)
                {
                    replacement = Array(String(Character(scalar)).utf8)
                }
            }
            if let replacement {
                out += replacement
                index = semicolon + 1
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
