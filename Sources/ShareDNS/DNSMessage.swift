/// A DNS message: built for queries and updates, parsed from answers.
///
/// Parsing is pure and defensive (the bytes come from the network): compression pointers may
/// only point backwards, at most 128 are followed per name, and any length that runs past the
/// end makes the whole message malformed instead of trapping.
public struct DNSMessage: Sendable, Hashable {
    /// The question of a query (or the zone of an update).
    public struct Question: Sendable, Hashable {
        public var name: DNSName
        public var type: DNSRecordType
        public var questionClass: DNSClass

        public init(name: DNSName, type: DNSRecordType, questionClass: DNSClass = .internet) {
            self.name = name
            self.type = type
            self.questionClass = questionClass
        }
    }

    /// Operation codes.
    public static let queryOpcode: UInt8 = 0
    public static let updateOpcode: UInt8 = 5

    public var id: UInt16
    public var isResponse: Bool
    public var opcode: UInt8
    public var isTruncated: Bool
    public var recursionDesired: Bool
    public var responseCode: DNSResponseCode
    public var questions: [Question]
    /// Answers (in an update: prerequisites).
    public var answers: [DNSRecord]
    /// Authority records (in an update: the changes).
    public var authority: [DNSRecord]
    public var additional: [DNSRecord]

    public init(
        id: UInt16, isResponse: Bool = false, opcode: UInt8 = queryOpcode, isTruncated: Bool = false,
        recursionDesired: Bool = false, responseCode: DNSResponseCode = .noError, questions: [Question] = [],
        answers: [DNSRecord] = [], authority: [DNSRecord] = [], additional: [DNSRecord] = []
    ) {
        self.id = id
        self.isResponse = isResponse
        self.opcode = opcode
        self.isTruncated = isTruncated
        self.recursionDesired = recursionDesired
        self.responseCode = responseCode
        self.questions = questions
        self.answers = answers
        self.authority = authority
        self.additional = additional
    }

    /// A standard query for `name` and `type`, with recursion desired (for a resolver).
    public static func query(_ name: DNSName, _ type: DNSRecordType, id: UInt16) -> DNSMessage {
        DNSMessage(id: id, recursionDesired: true, questions: [Question(name: name, type: type)])
    }

    /// The message in wire format (names uncompressed).
    public var wire: [UInt8] {
        var flags: UInt16 = (isResponse ? 0x8000 : 0) | UInt16(opcode & 0x0F) << 11
        if isTruncated { flags |= 0x0200 }
        if recursionDesired { flags |= 0x0100 }
        flags |= responseCode.rawValue & 0x0F
        var bytes = DNSWire.u16(id) + DNSWire.u16(flags)
        for count in [questions.count, answers.count, authority.count, additional.count] {
            bytes += DNSWire.u16(UInt16(count))
        }
        for question in questions {
            bytes += question.name.wire + DNSWire.u16(question.type.rawValue) + DNSWire.u16(question.questionClass.rawValue)
        }
        for record in answers + authority + additional { bytes += record.wire }
        return bytes
    }

    /// The records of the answer section of type `type` whose owner is `name`.
    public func answers(_ type: DNSRecordType, for name: DNSName) -> [DNSRecord] {
        answers.filter { $0.type == type && $0.name == name }
    }

    /// Parses a message.
    /// - Throws: ``DNSMessageError/malformed(_:)`` for anything that does not parse.
    public init(parsing bytes: [UInt8]) throws(DNSMessageError) {
        var reader = Reader(bytes: bytes)
        id = try reader.u16()
        let flags = try reader.u16()
        isResponse = flags & 0x8000 != 0
        opcode = UInt8((flags >> 11) & 0x0F)
        isTruncated = flags & 0x0200 != 0
        recursionDesired = flags & 0x0100 != 0
        responseCode = DNSResponseCode(rawValue: flags & 0x000F)
        let counts = [try reader.u16(), try reader.u16(), try reader.u16(), try reader.u16()]
        var questions: [Question] = []
        for _ in 0..<counts[0] {
            let name = try reader.name()
            questions.append(
                Question(name: name, type: DNSRecordType(rawValue: try reader.u16()), questionClass: DNSClass(rawValue: try reader.u16())))
        }
        self.questions = questions
        var sections: [[DNSRecord]] = []
        for count in counts.dropFirst() {
            var records: [DNSRecord] = []
            for _ in 0..<count { records.append(try reader.record()) }
            sections.append(records)
        }
        answers = sections[0]
        authority = sections[1]
        additional = sections[2]
    }

    /// Reads wire format from a buffer.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func u8() throws(DNSMessageError) -> UInt8 {
            guard position < bytes.count else { throw .malformed("it ends early") }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func u16() throws(DNSMessageError) -> UInt16 {
            UInt16(try u8()) << 8 | UInt16(try u8())
        }

        mutating func u32() throws(DNSMessageError) -> UInt32 {
            UInt32(try u16()) << 16 | UInt32(try u16())
        }

        mutating func take(_ count: Int) throws(DNSMessageError) -> [UInt8] {
            guard count >= 0, position + count <= bytes.count else { throw .malformed("a length runs past its end") }
            defer { position += count }
            return Array(bytes[position..<(position + count)])
        }

        /// A possibly compressed name; leaves `position` after the name's bytes in place.
        mutating func name() throws(DNSMessageError) -> DNSName {
            var labels: [[UInt8]] = []
            var cursor = position
            var jumped = false
            var jumps = 0
            while true {
                guard cursor < bytes.count else { throw .malformed("a name runs past the end") }
                let length = Int(bytes[cursor])
                if length & 0xC0 == 0xC0 {
                    guard cursor + 1 < bytes.count else { throw .malformed("a name runs past the end") }
                    let target = (length & 0x3F) << 8 | Int(bytes[cursor + 1])
                    guard target < cursor, jumps < 128 else { throw .malformed("a name has a bad compression pointer") }
                    if !jumped { position = cursor + 2 }
                    jumped = true
                    jumps += 1
                    cursor = target
                } else if length & 0xC0 != 0 {
                    throw .malformed("a name has an unknown label type")
                } else if length == 0 {
                    if !jumped { position = cursor + 1 }
                    break
                } else {
                    guard cursor + 1 + length <= bytes.count else { throw .malformed("a label runs past the end") }
                    labels.append(Array(bytes[(cursor + 1)...(cursor + length)]))
                    cursor += 1 + length
                }
            }
            do {
                return try DNSName(labels: labels)
            } catch {
                throw .malformed("a name is invalid: \(error)")
            }
        }

        mutating func record() throws(DNSMessageError) -> DNSRecord {
            let name = try name()
            let type = DNSRecordType(rawValue: try u16())
            let recordClass = DNSClass(rawValue: try u16())
            let ttl = try u32()
            let length = Int(try u16())
            let end = position + length
            guard end <= bytes.count else { throw .malformed("a record runs past the end") }
            let data: DNSRecord.Data
            switch type {
            case _ where length == 0: data = .empty
            case .ptr: data = .pointer(try self.name())
            case .srv:
                data = .service(priority: try u16(), weight: try u16(), port: try u16(), target: try self.name())
            case .txt:
                var strings: [[UInt8]] = []
                while position < end { strings.append(try take(Int(try u8()))) }
                data = .text(strings)
            case .a where length == 4: data = .ipv4(try take(4))
            case .aaaa where length == 16: data = .ipv6(try take(16))
            case .soa:
                let primary = try self.name()
                let mailbox = try self.name()
                data = .startOfAuthority(primary: primary, mailbox: mailbox, timers: try take(end - position))
            default: data = .raw(try take(length))
            }
            guard position == end else { throw .malformed("a \(type) record's data has the wrong length") }
            return DNSRecord(name: name, type: type, recordClass: recordClass, ttl: ttl, data: data)
        }
    }
}

/// A DNS message that does not parse.
public enum DNSMessageError: Error, Sendable, Hashable, CustomStringConvertible {
    case malformed(String)

    public var description: String {
        switch self {
        case .malformed(let problem): "a malformed DNS message: \(problem)"
        }
    }
}
