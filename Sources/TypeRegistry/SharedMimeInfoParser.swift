/// Reads one freedesktop MIME package file (`<mime-info>` XML) into type definitions.
///
/// Every unusable piece (a bad number, an unknown match type, a mask of the wrong length) is
/// dropped with a warning naming the file and line; a file that is not well-formed XML yields
/// the types read before the error and one warning.
struct SharedMimeInfoParser {
    /// A parsed `<mime-type>` element.
    struct Element {
        var definition: MimeTypeDefinition
        var deletesGlobs = false
        var deletesMagic = false
    }

    /// The largest offset a magic match may name, and the widest offset range.
    static let maximumOffset = 1 << 24
    static let maximumRange = 1 << 20
    static let maximumWarnings = 200

    private let source: String
    private(set) var elements: [Element] = []
    private(set) var warnings: [String] = []
    private var lineReader: XMLReader?

    init(source: String) {
        self.source = source
    }

    private struct MatchBuilder {
        var match: MagicMatch?
        var children: [MagicMatch] = []
    }

    private enum TextTarget {
        case comment, acronym, expandedAcronym
    }

    mutating func parse(_ bytes: [UInt8]) {
        var reader = XMLReader(bytes: bytes)
        lineReader = reader
        var depth = 0
        var skipUntilDepth: Int?
        var current: Element?
        var magicPriority: Int?
        var ruleMatches: [MagicMatch] = []
        var builders: [MatchBuilder] = []
        var textTarget: TextTarget?
        var text = ""
        do {
            while let event = try reader.next() {
                switch event {
                case .start(let name, let attributes):
                    depth += 1
                    if skipUntilDepth != nil { continue }
                    switch (depth, name) {
                    case (1, "mime-info"):
                        continue
                    case (1, _):
                        warn(reader.offset, "the root element is <\(name)>, not <mime-info>; the file is ignored")
                        return
                    case (2, "mime-type"):
                        guard let type = attributes["type"].flatMap(MIMEType.normalize) else {
                            warn(reader.offset, "<mime-type> without a valid type attribute; ignored")
                            skipUntilDepth = depth
                            continue
                        }
                        current = Element(definition: MimeTypeDefinition(mimeType: type))
                    case (3, _):
                        guard current != nil else { continue }
                        switch name {
                        case "comment", "acronym", "expanded-acronym":
                            if attributes["xml:lang"] == nil {
                                textTarget =
                                    name == "comment" ? .comment : name == "acronym" ? .acronym : .expandedAcronym
                                text = ""
                            } else {
                                skipUntilDepth = depth
                            }
                        case "glob":
                            glob(attributes, into: &current, offset: reader.offset)
                        case "glob-deleteall":
                            current?.deletesGlobs = true
                            current?.definition.globs.removeAll()
                        case "magic-deleteall":
                            current?.deletesMagic = true
                            current?.definition.magic.removeAll()
                        case "magic":
                            magicPriority = Self.clamp(
                                number(attributes["priority"], offset: reader.offset, what: "magic priority") ?? 50)
                            ruleMatches = []
                            builders = []
                        case "alias", "sub-class-of":
                            guard let type = attributes["type"].flatMap(MIMEType.normalize) else {
                                warn(reader.offset, "<\(name)> without a valid type attribute; ignored")
                                continue
                            }
                            if name == "alias" {
                                if !(current?.definition.aliases.contains(type) ?? true) {
                                    current?.definition.aliases.append(type)
                                }
                            } else if type != current?.definition.mimeType {
                                if !(current?.definition.parents.contains(type) ?? true) {
                                    current?.definition.parents.append(type)
                                }
                            }
                        case "generic-icon":
                            current?.definition.genericIcon = attributes["name"]
                        default:
                            skipUntilDepth = depth
                        }
                    case (_, "match") where magicPriority != nil && depth >= 4:
                        builders.append(MatchBuilder(match: match(attributes, offset: reader.offset)))
                    default:
                        skipUntilDepth = depth
                    }
                case .end(let name):
                    defer { depth -= 1 }
                    if let limit = skipUntilDepth {
                        if depth == limit { skipUntilDepth = nil }
                        continue
                    }
                    if depth == 2 && name == "mime-type", let element = current {
                        var finished = element
                        finished.definition.sources = [source]
                        elements.append(finished)
                        current = nil
                    } else if depth == 3 && textTarget != nil {
                        let value = text.trimmingTypeWhitespace()
                        switch textTarget {
                        case .comment: current?.definition.comment = value
                        case .acronym: current?.definition.acronym = value
                        case .expandedAcronym: current?.definition.expandedAcronym = value
                        case nil: break
                        }
                        textTarget = nil
                    } else if name == "match", magicPriority != nil, let builder = builders.popLast() {
                        if var match = builder.match {
                            match = MagicMatch(
                                kind: match.kind, offsets: match.offsets, value: match.value, mask: match.mask,
                                children: builder.children)
                            if builders.isEmpty {
                                ruleMatches.append(match)
                            } else if builders[builders.count - 1].match != nil {
                                builders[builders.count - 1].children.append(match)
                            }
                        }
                    } else if depth == 3 && name == "magic", let priority = magicPriority {
                        if !ruleMatches.isEmpty {
                            current?.definition.magic.append(MagicRule(priority: priority, matches: ruleMatches))
                        }
                        magicPriority = nil
                    }
                case .text(let range, let isCDATA):
                    if textTarget != nil && skipUntilDepth == nil { text += reader.text(range, isCDATA: isCDATA) }
                }
            }
        } catch {
            warn(line: error.line, "not well-formed XML (\(error.message)); types after this point are ignored")
        }
    }

    // MARK: - Elements

    private mutating func glob(_ attributes: [String: String], into element: inout Element?, offset: Int) {
        guard let pattern = attributes["pattern"], !pattern.isEmpty else {
            warn(offset, "<glob> without a pattern; ignored")
            return
        }
        let weight = Self.clamp(number(attributes["weight"], offset: offset, what: "glob weight") ?? 50)
        let caseSensitive = attributes["case-sensitive"]?.lowercased() == "true"
        let glob = MimeGlob(pattern: pattern, weight: weight, caseSensitive: caseSensitive)
        if !(element?.definition.globs.contains(glob) ?? true) { element?.definition.globs.append(glob) }
    }

    private mutating func match(_ attributes: [String: String], offset: Int) -> MagicMatch? {
        guard let typeText = attributes["type"], let kind = MagicMatch.Kind(rawValue: typeText) else {
            warn(offset, "<match> of unknown type '\(attributes["type"] ?? "")'; ignored with its nested matches")
            return nil
        }
        guard let offsetText = attributes["offset"], let offsets = Self.offsets(offsetText) else {
            warn(offset, "<match> offset '\(attributes["offset"] ?? "")' is not a number or start:end range; ignored")
            return nil
        }
        guard let valueText = attributes["value"] else {
            warn(offset, "<match> without a value; ignored")
            return nil
        }
        let value: [UInt8]
        var mask: [UInt8]?
        if let width = kind.width {
            guard let number = Self.parseNumber(valueText),
                let bytes = Self.bytes(number, width: width, bigEndian: kind.isBigEndian)
            else {
                warn(offset, "<match> value '\(valueText)' is not a \(width * 8)-bit number; ignored")
                return nil
            }
            value = bytes
            if let maskText = attributes["mask"] {
                guard let number = Self.parseNumber(maskText),
                    let bytes = Self.bytes(number, width: width, bigEndian: kind.isBigEndian)
                else {
                    warn(offset, "<match> mask '\(maskText)' is not a \(width * 8)-bit number; ignored")
                    return nil
                }
                mask = bytes
            }
        } else {
            value = Self.unescape(valueText)
            guard !value.isEmpty else {
                warn(offset, "<match> with an empty string value; ignored")
                return nil
            }
            if let maskText = attributes["mask"] {
                guard let bytes = Self.hexBytes(maskText), bytes.count == value.count else {
                    warn(
                        offset,
                        "<match> mask '\(maskText)' is not 0x-hex of the value's length (\(value.count) bytes); ignored"
                    )
                    return nil
                }
                mask = bytes
            }
        }
        return MagicMatch(kind: kind, offsets: offsets, value: value, mask: mask)
    }

    private mutating func number(_ text: String?, offset: Int, what: String) -> Int? {
        guard let text else { return nil }
        guard let value = Self.parseNumber(text), value <= UInt64(Int.max) else {
            warn(offset, "\(what) '\(text)' is not a number; the default is used")
            return nil
        }
        return Int(value)
    }

    private mutating func warn(_ offset: Int, _ message: String) {
        warn(line: lineReader?.line(at: offset) ?? 0, message)
    }

    private mutating func warn(line: Int, _ message: String) {
        guard warnings.count < Self.maximumWarnings else { return }
        warnings.append("\(source):\(line): \(message)")
    }

    // MARK: - Values

    static func clamp(_ value: Int) -> Int { max(0, min(100, value)) }

    /// `4`, `0:256` (inclusive range), bounded.
    static func offsets(_ text: String) -> ClosedRange<Int>? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        guard let start = parseNumber(String(parts[0])), start <= UInt64(maximumOffset) else { return nil }
        var end = start
        if parts.count == 2 {
            guard let value = parseNumber(String(parts[1])), value >= start, value - start <= UInt64(maximumRange),
                value <= UInt64(maximumOffset + maximumRange)
            else { return nil }
            end = value
        }
        return Int(start)...Int(end)
    }

    /// Like C's `strtoul(text, 0)`: `0x` hex, a leading `0` octal, otherwise decimal.
    static func parseNumber(_ text: String) -> UInt64? {
        let trimmed = text.trimmingTypeWhitespace()
        if trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X") { return UInt64(trimmed.dropFirst(2), radix: 16) }
        if trimmed.count > 1 && trimmed.hasPrefix("0") { return UInt64(trimmed.dropFirst(), radix: 8) }
        return UInt64(trimmed, radix: 10)
    }

    static func bytes(_ number: UInt64, width: Int, bigEndian: Bool) -> [UInt8]? {
        guard width == 8 || number < (UInt64(1) << UInt64(width * 8)) else { return nil }
        var result = (0..<width).map { UInt8((number >> UInt64($0 * 8)) & 0xFF) }
        if bigEndian { result.reverse() }
        return result
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        let trimmed = text.trimmingTypeWhitespace()
        guard trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X") else { return nil }
        let digits = Array(trimmed.dropFirst(2))
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        var index = 0
        while index < digits.count {
            guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else { return nil }
            result.append(byte)
            index += 2
        }
        return result
    }

    /// The bytes of a string value with C escapes: `\n`, `\t`, `\r`, `\\`, `\xHH`, `\ooo`, `\<any>`.
    static func unescape(_ text: String) -> [UInt8] {
        let input = Array(text.utf8)
        var out: [UInt8] = []
        var index = 0
        func isOctal(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x37 }
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
        while index < input.count {
            let byte = input[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < input.count else {
                out.append(byte)
                index += 1
                continue
            }
            let next = input[index + 1]
            index += 2
            switch next {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "x"):
                var value: UInt8 = 0
                var digits = 0
                while digits < 2, index < input.count, let digit = hexValue(input[index]) {
                    value = value << 4 | digit
                    index += 1
                    digits += 1
                }
                out.append(digits == 0 ? UInt8(ascii: "x") : value)
            case let digit where isOctal(digit):
                var value = UInt16(digit - 0x30)
                var digits = 1
                while digits < 3, index < input.count, isOctal(input[index]) {
                    value = value << 3 | UInt16(input[index] - 0x30)
                    index += 1
                    digits += 1
                }
                out.append(UInt8(truncatingIfNeeded: value))
            default:
                out.append(next)
            }
        }
        return out
    }
}
