import ShareTestSupport
import Testing

@testable import ShareDiscovery

@Suite("Merging instances into services")
struct ServiceAggregatorTests {
    typealias Key = ServiceAggregator.InstanceKey
    static let v4Key = Key(interfaceIndex: 2, family: .ipv4, name: "desk")
    static let v6Key = Key(interfaceIndex: 2, family: .ipv6, name: "desk")

    static func resolution(_ ip: String, _ family: ServiceAddress.Family, txt: [String: String] = ["v": "1"])
        -> ServiceAggregator.Resolution
    {
        .init(
            host: "a.local", port: 47321,
            address: ServiceAddress(ip: ip, family: family, interfaceName: "eth0", interfaceIndex: 2), txt: txt)
    }

    @Test("Appears on the first resolution, updates on a new address, disappears with the last instance")
    func lifecycle() throws {
        var aggregator = ServiceAggregator(type: "_share._tcp")
        aggregator.instanceAdded(Self.v6Key, isLocal: false)
        aggregator.instanceAdded(Self.v4Key, isLocal: false)
        #expect(aggregator.pendingCount == 2)

        let first = aggregator.instanceResolved(Self.v6Key, Self.resolution("fe80::1%eth0", .ipv6), isLocal: false)
        guard case .appeared(let appeared) = try #require(first.first) else {
            throw HarnessError(description: "\(first)")
        }
        #expect(appeared.addresses.map(\.ip) == ["fe80::1%eth0"])

        let second = aggregator.instanceResolved(Self.v4Key, Self.resolution("10.0.0.7", .ipv4), isLocal: false)
        guard case .updated(let updated) = try #require(second.first) else {
            throw HarnessError(description: "\(second)")
        }
        #expect(updated.addresses.map(\.ip) == ["10.0.0.7", "fe80::1%eth0"])
        #expect(aggregator.pendingCount == 0)

        // Re-reporting the same data produces no event.
        #expect(aggregator.instanceResolved(Self.v4Key, Self.resolution("10.0.0.7", .ipv4), isLocal: false).isEmpty)

        let lostV4 = aggregator.instanceRemoved(Self.v4Key)
        guard case .updated(let shrunk) = try #require(lostV4.first) else {
            throw HarnessError(description: "\(lostV4)")
        }
        #expect(shrunk.addresses.map(\.ip) == ["fe80::1%eth0"])
        #expect(aggregator.instanceRemoved(Self.v6Key) == [.disappeared(name: "desk")])
    }

    @Test("A failed resolution fails nothing else, and a name that never resolved never appears or disappears")
    func failures() {
        var aggregator = ServiceAggregator(type: "_share._tcp")
        aggregator.instanceAdded(Self.v4Key, isLocal: false)
        aggregator.instanceAdded(Self.v6Key, isLocal: false)
        #expect(aggregator.instanceFailed(Self.v6Key).isEmpty)
        #expect(aggregator.pendingCount == 1)
        let events = aggregator.instanceResolved(Self.v4Key, Self.resolution("10.0.0.7", .ipv4), isLocal: false)
        #expect(events.count == 1)

        var silent = ServiceAggregator(type: "_share._tcp")
        silent.instanceAdded(Self.v4Key, isLocal: false)
        #expect(silent.instanceFailed(Self.v4Key).isEmpty)
        #expect(silent.instanceRemoved(Self.v4Key).isEmpty)
        #expect(silent.pendingCount == 0)
    }

    @Test("TXT and port come from the IPv4 instance when both differ; isLocal from any instance")
    func primaryInstance() throws {
        var aggregator = ServiceAggregator(type: "_share._tcp")
        aggregator.instanceAdded(Self.v6Key, isLocal: true)
        aggregator.instanceAdded(Self.v4Key, isLocal: false)
        _ = aggregator.instanceResolved(
            Self.v6Key, Self.resolution("fe80::1%eth0", .ipv6, txt: ["v": "2"]), isLocal: false)
        _ = aggregator.instanceResolved(Self.v4Key, Self.resolution("10.0.0.7", .ipv4, txt: ["v": "1"]), isLocal: false)
        let service = try #require(aggregator.services["desk"])
        #expect(service.txt == ["v": "1"])
        #expect(service.isLocal)
    }

    @Test("Events for unknown instances are ignored")
    func unknownInstances() {
        var aggregator = ServiceAggregator(type: "_share._tcp")
        #expect(aggregator.instanceRemoved(Self.v4Key).isEmpty)
        #expect(aggregator.instanceResolved(Self.v4Key, Self.resolution("10.0.0.7", .ipv4), isLocal: false).isEmpty)
        #expect(aggregator.instanceFailed(Self.v4Key).isEmpty)
    }
}
