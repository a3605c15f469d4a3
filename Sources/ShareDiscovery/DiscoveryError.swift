/// What went wrong while publishing or browsing, written for the person at the terminal.
///
/// The CLI prints `Error: \(error)`; when ``isDaemonUnavailable`` is true it exits with 69
/// (`EX_UNAVAILABLE`).
public enum DiscoveryError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The D-Bus system bus cannot be reached, and with it neither can avahi-daemon.
    /// `address` is the bus address that was tried.
    case systemBusUnavailable(address: String, code: AvahiErrorCode)
    /// The system bus works, but avahi-daemon is not running on it.
    case daemonNotRunning
    /// The connection to avahi-daemon was lost (it stopped, restarted, or D-Bus went away).
    case daemonLost
    /// The service (device) name cannot be published; `problem` says why.
    case invalidServiceName(String, problem: String)
    /// The service type is not of the form `_name._tcp` or `_name._udp`.
    case invalidServiceType(String)
    /// A TXT entry cannot be published; `problem` says why.
    case invalidTXTRecord(key: String, problem: String)
    /// Avahi refused an operation; `operation` names it in plain words.
    case avahi(operation: String, code: AvahiErrorCode)

    /// True when discovery is impossible because avahi-daemon or D-Bus is not there: the CLI
    /// maps this to exit status 69, and a receiver keeps running but is not discoverable.
    public var isDaemonUnavailable: Bool {
        switch self {
        case .systemBusUnavailable, .daemonNotRunning, .daemonLost: true
        case .avahi(_, let code): code == .noDaemon || code == .disconnected
        case .invalidServiceName, .invalidServiceType, .invalidTXTRecord: false
        }
    }

    /// A message saying what happened and what to do about it.
    public var description: String {
        switch self {
        case .systemBusUnavailable(let address, let code):
            "cannot reach the D-Bus system bus at \(address) ("
                + (code == .noDaemon ? "nothing listens there" : code.description)
                + "), which avahi-daemon needs, so this "
                + "machine can neither find peers nor be found. Start both with "
                + "'sudo systemctl start dbus avahi-daemon'."
        case .daemonNotRunning:
            "avahi-daemon is not running, so this machine can neither find peers nor be found. Start it "
                + "with 'sudo systemctl start avahi-daemon' (or 'sudo avahi-daemon --daemonize' where there "
                + "is no systemd); if it is not installed: 'sudo apt-get install avahi-daemon'."
        case .daemonLost:
            "lost the connection to avahi-daemon (it stopped or restarted). Check it with "
                + "'systemctl status avahi-daemon' and start it with 'sudo systemctl start avahi-daemon'."
        case .invalidServiceName(let name, let problem):
            "the device name \(Self.quoted(name)) cannot be published: \(problem). Choose another name."
        case .invalidServiceType(let type):
            "\(Self.quoted(type)) is not a DNS-SD service type (expected something like '_share._tcp')."
        case .invalidTXTRecord(let key, let problem):
            "the TXT entry \(Self.quoted(key)) cannot be published: \(problem)."
        case .avahi(let operation, let code):
            "avahi-daemon could not \(operation): \(code)."
        }
    }

    /// Quotes a string for a message, escaping control characters so that a hostile name
    /// cannot rewrite the terminal.
    static func quoted(_ text: String) -> String {
        var out = "'"
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "'"
    }
}
