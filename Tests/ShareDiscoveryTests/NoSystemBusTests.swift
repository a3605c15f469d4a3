import Foundation
import ShareTestSupport
import Testing

/// Discovery with a D-Bus address that leads nowhere: needs no namespaces, only the probe.
@Suite(.enabled(if: SimulatedLAN.probe != nil, "ShareDiscoveryProbe was not built"))
struct NoSystemBusTests {
    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/share-test/system_bus_socket"
        return environment
    }

    @Test("A publisher without a system bus reports it is not discoverable, and how to fix it")
    func publisherReportsMissingBus() async throws {
        let probe = try #require(SimulatedLAN.probe)
        let publisher = try HostProcess(
            label: "publish without bus", executable: probe, arguments: ["publish", "desk", "47321"],
            environment: Self.environment)
        defer { publisher.terminate() }
        let line = try await publisher.waitFor("daemonUnavailable", within: .seconds(5)) {
            $0.event == "daemonUnavailable"
        }.line
        let message = try #require(line.message)
        #expect(message.contains("D-Bus system bus"))
        #expect(message.contains("/nonexistent/share-test/system_bus_socket"))
        #expect(message.contains("systemctl start dbus avahi-daemon"))
        // The publisher keeps running (a receiver stays usable without discovery).
        try await Task.sleep(for: .milliseconds(300))
        #expect(await publisher.exitStatus(within: .zero) == nil)
        publisher.closeInput()
        #expect(await publisher.exitStatus(within: .seconds(5)) == 0)
    }

    @Test("Browsing without a system bus fails with the unavailable error (exit 69)")
    func browsingFailsWithoutBus() async throws {
        let probe = try #require(SimulatedLAN.probe)
        let snapshot = try HostProcess(
            label: "snapshot without bus", executable: probe, arguments: ["snapshot", "2"],
            environment: Self.environment)
        let line = try await snapshot.waitFor("error", within: .seconds(5)) { $0.event == "error" }.line
        #expect(line.unavailable == true)
        #expect(line.message?.contains("cannot reach the D-Bus system bus") == true)
        #expect(await snapshot.exitStatus(within: .seconds(5)) == 69)
    }
}
