public import ShareDNS

/// An RFC 2136 dynamic update: the zone, the prerequisites that must hold, and the changes, which
/// the server applies all together or not at all.
public struct DNSUpdate: Sendable, Hashable {
    /// A condition the server checks before it changes anything (RFC 2136 §2.4).
    public enum Prerequisite: Sendable, Hashable {
        /// No record of any type exists at the name (fails with YXDOMAIN).
        case nameNotInUse(DNSName)
        /// The record set of these records' name and type exists with exactly these records
        /// (fails with NXRRSET): "it is still ours".
        case recordSetEquals([DNSRecord])
    }

    /// One change (RFC 2136 §2.5).
    public enum Change: Sendable, Hashable {
        /// Adds a record (adding one that exists changes nothing).
        case add(DNSRecord)
        /// Deletes one record.
        case delete(DNSRecord)
        /// Deletes every record of a type at a name.
        case deleteRecordSet(DNSName, DNSRecordType)
        /// Deletes every record at a name.
        case deleteName(DNSName)
    }

    public var zone: DNSName
    public var prerequisites: [Prerequisite]
    public var changes: [Change]

    public init(zone: DNSName, prerequisites: [Prerequisite] = [], changes: [Change] = []) {
        self.zone = zone
        self.prerequisites = prerequisites
        self.changes = changes
    }

    /// The UPDATE message (without its signature).
    public func message(id: UInt16) -> DNSMessage {
        let prerequisiteRecords: [DNSRecord] = prerequisites.flatMap { prerequisite -> [DNSRecord] in
            switch prerequisite {
            case .nameNotInUse(let name):
                [DNSRecord(name: name, type: .any, recordClass: .none, ttl: 0, data: .empty)]
            case .recordSetEquals(let records):
                records.map { record in
                    var record = record
                    record.ttl = 0
                    return record
                }
            }
        }
        let changeRecords: [DNSRecord] = changes.map { change in
            switch change {
            case .add(let record): record
            case .delete(let record):
                DNSRecord(name: record.name, type: record.type, recordClass: .none, ttl: 0, data: record.data)
            case .deleteRecordSet(let name, let type):
                DNSRecord(name: name, type: type, recordClass: .any, ttl: 0, data: .empty)
            case .deleteName(let name):
                DNSRecord(name: name, type: .any, recordClass: .any, ttl: 0, data: .empty)
            }
        }
        return DNSMessage(
            id: id, opcode: DNSMessage.updateOpcode, questions: [.init(name: zone, type: .soa)],
            answers: prerequisiteRecords, authority: changeRecords)
    }
}
