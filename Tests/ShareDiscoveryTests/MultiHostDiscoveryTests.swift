import Foundation
import ShareDiscovery
import ShareTestSupport
import Testing

/// Discovery between simulated hosts (network namespaces, each with its own D-Bus and
/// avahi-daemon), through the real library running inside each host (ShareDiscoveryProbe).
@Suite(.serialized, .enabled(if: SimulatedLAN.probeShouldRun, SimulatedLAN.skipNote))
struct MultiHostDiscoveryTests {
    static let fingerprint = "0123456789abcdef0123456789abcdef"

    /// The newest state of `name` reported by a browser, or nil if it is gone or never came.
    static func latest(_ name: String, in browser: HostProcess) -> DiscoveredService? {
        var current: DiscoveredService?
        for line in browser.probeLines {
            if line.event == "appeared" || line.event == "updated", line.service?.name == name {
                current = line.service
            }
            if line.event == "disappeared", line.name == name { current = nil }
        }
        return current
    }

    /// Waits until a browser's view of `name` satisfies `predicate`.
    @discardableResult
    static func waitForService(
        _ name: String, in browser: HostProcess, within timeout: Duration,
        where predicate: (DiscoveredService) -> Bool = { _ in true }
    ) async throws -> DiscoveredService {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if let service = latest(name, in: browser), predicate(service) { return service }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError(
            description: "\(browser.label): '\(name)' not seen as expected; output:\n\(browser.transcript)")
    }

    @Test("A service published on host a is seen from b and c with its port, TXT and addresses")
    func publishedServiceIsSeenFromOtherHosts() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b", "c"])
        defer { lan.down() }
        let browsers = try ["b", "c"].map { try lan.probe(on: $0, ["browse"]) }
        for browser in browsers {
            try await browser.waitFor("browsing", within: .seconds(5)) { $0.event == "browsing" }
        }

        let publisher = try lan.probe(on: "a", ["publish", "desk", "47321", "v=1", "fp=\(Self.fingerprint)"])
        try await publisher.waitFor("published", within: .seconds(5)) { $0.event == "published" && $0.name == "desk" }

        let ipv4 = try lan.ipv4("a")
        let ipv6 = try lan.ipv6LinkLocal("a")
        for browser in browsers {
            let desk = try await Self.waitForService("desk", in: browser, within: .seconds(5)) {
                $0.addresses.count == 2
            }
            #expect(desk.port == 47321)
            #expect(desk.txt == ["v": "1", "fp": Self.fingerprint])
            #expect(desk.host == "a.local")
            #expect(!desk.isLocal)
            #expect(
                desk.addresses.map(\.ip) == [ipv4, "\(ipv6)%eth0"], "IPv4 first, then link-local IPv6 with its scope")
            #expect(desk.addresses.map(\.family) == [.ipv4, .ipv6])
            #expect(desk.addresses.allSatisfy { $0.interfaceName == "eth0" && $0.interfaceIndex > 0 })
        }

        // A snapshot on host a itself lists its own service, marked local.
        let snapshot = try lan.probe(on: "a", ["snapshot", "3"])
        let line = try await snapshot.waitFor("snapshot", within: .seconds(6)) { $0.event == "snapshot" }.line
        let own = try #require(line.services?.first { $0.name == "desk" })
        #expect(own.isLocal)
        #expect(own.port == 47321)
        publisher.closeInput()
        for browser in browsers { browser.closeInput() }
    }

    @Test("Two hosts wanting the same name both stay visible; the later one is renamed and told so")
    func collidingNamesEndUpDistinct() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b", "c"])
        defer { lan.down() }
        let first = try lan.probe(on: "a", ["publish", "desk", "1001", "v=1"])
        try await first.waitFor("published", within: .seconds(5)) { $0.event == "published" }
        let second = try lan.probe(on: "b", ["publish", "desk", "1002", "v=1"])
        let renamed = try await second.waitFor("renamed", within: .seconds(5)) { $0.event == "renamed" }.line
        #expect(renamed.from == "desk")
        let newName = try #require(renamed.name)
        #expect(newName != "desk")
        try await second.waitFor("published", within: .seconds(5)) { $0.event == "published" && $0.name == newName }
        #expect(!first.probeLines.contains { $0.event == "renamed" }, "the first publisher keeps its name")

        let snapshot = try lan.probe(on: "c", ["snapshot", "3"])
        let services = try #require(
            try await snapshot.waitFor("snapshot", within: .seconds(6)) { $0.event == "snapshot" }.line.services)
        let byName = Dictionary(services.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byName["desk"]?.host == "a.local")
        #expect(byName["desk"]?.port == 1001)
        #expect(byName[newName]?.host == "b.local")
        #expect(byName[newName]?.port == 1002)
        first.closeInput()
        second.closeInput()
    }

    @Test("A publisher that closes disappears from a watcher on another host")
    func closedPublisherDisappears() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b"])
        defer { lan.down() }
        let watcher = try lan.probe(on: "b", ["browse"])
        try await watcher.waitFor("browsing", within: .seconds(5)) { $0.event == "browsing" }
        let publisher = try lan.probe(on: "a", ["publish", "desk", "47321", "v=1"])
        let appeared = try await watcher.waitFor("appeared", within: .seconds(5)) {
            $0.event == "appeared" && $0.service?.name == "desk"
        }
        publisher.closeInput()
        try await publisher.waitFor("closed", within: .seconds(5)) { $0.event == "closed" }
        try await watcher.waitFor("disappeared", after: appeared.index, within: .seconds(5)) {
            $0.event == "disappeared" && $0.name == "desk"
        }
        #expect(await publisher.exitStatus(within: .seconds(5)) == 0)
        watcher.closeInput()
    }

    @Test("After avahi-daemon restarts under a live publisher, the service is visible again")
    func daemonRestartRepublishes() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b"])
        defer { lan.down() }
        let watcher = try lan.probe(on: "b", ["browse"])
        try await watcher.waitFor("browsing", within: .seconds(5)) { $0.event == "browsing" }
        let localWatcher = try lan.probe(on: "a", ["browse"])
        try await localWatcher.waitFor("browsing", within: .seconds(5)) { $0.event == "browsing" }
        let publisher = try lan.probe(on: "a", ["publish", "desk", "47321", "v=1"])
        let published = try await publisher.waitFor("published", within: .seconds(5)) { $0.event == "published" }
        let appeared = try await watcher.waitFor("appeared", within: .seconds(5)) {
            $0.event == "appeared" && $0.service?.name == "desk"
        }

        try lan.restartAvahi("a")

        let lost = try await publisher.waitFor("daemonUnavailable", after: published.index, within: .seconds(5)) {
            $0.event == "daemonUnavailable"
        }
        let returned = try await publisher.waitFor("daemonReturned", after: lost.index, within: .seconds(10)) {
            $0.event == "daemonReturned"
        }
        try await publisher.waitFor("published again", after: returned.index, within: .seconds(5)) {
            $0.event == "published" && $0.name == "desk"
        }
        let gone = try await watcher.waitFor("disappeared", after: appeared.index, within: .seconds(5)) {
            $0.event == "disappeared" && $0.name == "desk"
        }
        let back = try await watcher.waitFor("appeared again", after: gone.index, within: .seconds(10)) {
            $0.event == "appeared" && $0.service?.name == "desk"
        }
        #expect(back.line.service?.port == 47321)

        // A browser on host a itself loses its daemon: it ends with a failure that says so.
        let failure = try await localWatcher.waitFor("failure", within: .seconds(5)) { $0.event == "failure" }.line
        #expect(failure.message?.contains("lost the connection to avahi-daemon") == true)
        try await localWatcher.waitFor("closed", within: .seconds(5)) { $0.event == "closed" }
        publisher.closeInput()
        watcher.closeInput()
    }

    @Test("Without avahi-daemon: publishing says so with a remedy, browsing fails (69), a later daemon is used")
    func missingDaemonIsReportedAndRecovered() async throws {
        let lan = try SimulatedLAN(hosts: ["a"])
        defer { lan.down() }
        try lan.stopAvahi("a")

        let publisher = try lan.probe(on: "a", ["publish", "desk", "47321", "v=1"])
        let unavailable = try await publisher.waitFor("daemonUnavailable", within: .seconds(5)) {
            $0.event == "daemonUnavailable"
        }
        let message = try #require(unavailable.line.message)
        #expect(message.contains("avahi-daemon is not running"))
        #expect(message.contains("systemctl start avahi-daemon"))

        let snapshot = try lan.probe(on: "a", ["snapshot", "2"])
        let error = try await snapshot.waitFor("error", within: .seconds(5)) { $0.event == "error" }.line
        #expect(error.unavailable == true)
        #expect(error.message?.contains("avahi-daemon is not running") == true)
        #expect(await snapshot.exitStatus(within: .seconds(5)) == 69)

        // The daemon starts later: the same publisher announces the service by itself.
        try lan.startAvahi("a")
        let returned = try await publisher.waitFor("daemonReturned", after: unavailable.index, within: .seconds(5)) {
            $0.event == "daemonReturned"
        }
        try await publisher.waitFor("published", after: returned.index, within: .seconds(5)) {
            $0.event == "published" && $0.name == "desk"
        }
        publisher.closeInput()
    }

    @Test("Informational: time from publish until another host's browser sees the service")
    func publishToSeenLatency() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b"])
        defer { lan.down() }
        let watcher = try lan.probe(on: "b", ["browse"])
        try await watcher.waitFor("browsing", within: .seconds(5)) { $0.event == "browsing" }
        var toEstablished: [Double] = []
        var toSeen: [Double] = []
        for trial in 1...10 {
            let name = "latency-\(trial)"
            let publisher = try lan.probe(on: "a", ["publish", name, "47321", "v=1"])
            let start = try await publisher.waitFor("starting", within: .seconds(5)) { $0.event == "starting" }.line
            let established = try await publisher.waitFor("published", within: .seconds(5)) { $0.event == "published" }
            let seen = try await watcher.waitFor("appeared", within: .seconds(5)) {
                $0.event == "appeared" && $0.service?.name == name
            }
            toEstablished.append(Double(established.line.t - start.t) / 1e6)
            toSeen.append(Double(Int64(seen.line.t) - Int64(start.t)) / 1e6)
            publisher.closeInput()
            try await watcher.waitFor("disappeared", after: seen.index, within: .seconds(5)) {
                $0.event == "disappeared" && $0.name == name
            }
        }
        func summary(_ values: [Double]) -> String {
            let sorted = values.sorted()
            return String(
                format: "min %.0f ms, median %.0f ms, max %.0f ms", sorted[0], sorted[sorted.count / 2],
                sorted[sorted.count - 1])
        }
        print(
            "discovery latency over \(toSeen.count) trials: publish→established \(summary(toEstablished)); "
                + "publish→seen on other host \(summary(toSeen))")
        #expect(toSeen.count == 10)
        watcher.closeInput()
    }
}
