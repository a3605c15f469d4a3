/// One resource record: an owner name, a type, a class, a time to live and its data.
public struct DNSRecord: Sendable, Hashable {
    /// The record's data, decoded for the types DNS-SD uses.
    public enum Data: Sendable, Hashable {
        /// PTR: the name pointed at.
        case pointer(DNSName)
        /// SRV: priority, weight, port and target host.
        case service(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
        /// TXT: the character strings, each at most 255 bytes.
        case text([[UInt8]])
        /// A: four bytes.
        case ipv4([UInt8])
        /// AAAA: sixteen bytes.
        case ipv6([UInt8])
        /// SOA: the zone's primary server and its administrator's mailbox (timers are kept raw).
        case startOfAuthority(primary: DNSName, mailbox: DNSName, timers: [UInt8])
        /// No data: RFC 2136 prerequisites and deletions (class ANY or NONE, length 0).
        case empty
        /// Any other type, as its raw bytes.
        case raw([UInt8])
    }

    public var name: DNSName
    public var type: DNSRecordType
    public var recordClass: DNSClass
    public var ttl: UInt32
    public var data: Data

    public init(name: DNSName, type: DNSRecordType, recordClass: DNSClass = .internet, ttl: UInt32, data: Data) {
        self.name = name
        self.type = type
        self.recordClass = recordClass
        self.ttl = ttl
        self.data = data
    }

    /// A PTR record.
    public static func pointer(_ name: DNSName, to target: DNSName, ttl: UInt32) -> DNSRecord {
        DNSRecord(name: name, type: .ptr, ttl: ttl, data: .pointer(target))
    }

    /// An SRV record with priority and weight 0.
    public static func service(_ name: DNSName, port: UInt16, target: DNSName, ttl: UInt32) -> DNSRecord {
        DNSRecord(name: name, type: .srv, ttl: ttl, data: .service(priority: 0, weight: 0, port: port, target: target))
    }

    /// A TXT record.
    public static func text(_ name: DNSName, _ strings: [[UInt8]], ttl: UInt32) -> DNSRecord {
        DNSRecord(name: name, type: .txt, ttl: ttl, data: .text(strings))
    }

    /// An A or AAAA record for an address of 4 or 16 bytes.
    public static func address(_ name: DNSName, _ bytes: [UInt8], ttl: UInt32) -> DNSRecord {
        bytes.count == 4
            ? DNSRecord(name: name, type: .a, ttl: ttl, data: .ipv4(bytes))
            : DNSRecord(name: name, type: .aaaa, ttl: ttl, data: .ipv6(bytes))
    }

    /// The record data in wire format, names uncompressed (RFC 3597 §4: never compressed in SRV).
    public var dataWire: [UInt8] {
        switch data {
        case .pointer(let target): target.wire
        case .service(let priority, let weight, let port, let target):
            DNSWire.u16(priority) + DNSWire.u16(weight) + DNSWire.u16(port) + target.wire
        case .text(let strings): strings.flatMap { [UInt8($0.count)] + $0 }
        case .ipv4(let bytes), .ipv6(let bytes), .raw(let bytes): bytes
        case .startOfAuthority(let primary, let mailbox, let timers): primary.wire + mailbox.wire + timers
        case .empty: []
        }
    }

    /// The whole record in wire format.
    public var wire: [UInt8] {
        let rdata = dataWire
        return name.wire + DNSWire.u16(type.rawValue) + DNSWire.u16(recordClass.rawValue) + DNSWire.u32(ttl)
            + DNSWire.u16(UInt16(rdata.count)) + rdata
    }
}

/// Big-endian integers for wire format.
enum DNSWire {
    static func u16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func u32(_ value: UInt32) -> [UInt8] { u16(UInt16(value >> 16)) + u16(UInt16(value & 0xFFFF)) }
}
