import ShareDiscovery
import Testing

@Suite("Error descriptions")
struct DiscoveryErrorTests {
    @Test("Avahi codes read as Avahi's own text")
    func avahiCodes() {
        #expect(AvahiErrorCode.noDaemon.rawValue == -26)
        #expect(AvahiErrorCode.noDaemon.description == "Daemon not running")
        #expect(
            AvahiErrorCode.collision.description == "Local name collision"
                || AvahiErrorCode.collision.description == "Name collision")
        #expect(AvahiErrorCode(rawValue: -9999).description.isEmpty == false)
    }

    @Test("A missing daemon or bus says what to run, and counts as unavailable (exit 69)")
    func unavailableMessages() {
        let notRunning = DiscoveryError.daemonNotRunning
        #expect(notRunning.isDaemonUnavailable)
        #expect(notRunning.description.contains("avahi-daemon is not running"))
        #expect(notRunning.description.contains("sudo systemctl start avahi-daemon"))
        #expect(notRunning.description.contains("avahi-daemon --daemonize"))

        let noBus = DiscoveryError.systemBusUnavailable(
            address: "unix:path=/run/dbus/system_bus_socket", code: .noDaemon)
        #expect(noBus.isDaemonUnavailable)
        #expect(noBus.description.contains("unix:path=/run/dbus/system_bus_socket"))
        #expect(noBus.description.contains("systemctl start dbus avahi-daemon"))

        #expect(DiscoveryError.daemonLost.isDaemonUnavailable)
        #expect(DiscoveryError.daemonLost.description.contains("systemctl start avahi-daemon"))
    }

    @Test("Other errors are not 'unavailable' and name their cause")
    func otherErrors() {
        let refused = DiscoveryError.avahi(operation: "publish the service", code: .invalidRecord)
        #expect(!refused.isDaemonUnavailable)
        #expect(refused.description == "avahi-daemon could not publish the service: \(AvahiErrorCode.invalidRecord).")
        #expect(!DiscoveryError.invalidServiceType("http").isDaemonUnavailable)
        #expect(DiscoveryError.invalidServiceType("http").description.contains("_share._tcp"))
    }
}
