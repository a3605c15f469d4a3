import ShareDiscovery

/// Why the receivers nearby could not be looked for (or this receiver not published), written for
/// the person at the terminal: avahi-daemon or D-Bus is not there, the daemon went away, Avahi
/// refused a name.
///
/// The CLI prints `Error: \(error)`; when ``isDaemonUnavailable`` is true it exits with 69
/// (`EX_UNAVAILABLE`).
public struct PeerDiscoveryError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What went wrong, and how to fix it.
    public var description: String
    /// Whether avahi-daemon or the D-Bus system bus is not reachable (rather than a refusal).
    public var isDaemonUnavailable: Bool

    /// The error Avahi's browser or publisher reported, as the command line shows it.
    init(_ error: DiscoveryError) {
        description = error.description
        isDaemonUnavailable = error.isDaemonUnavailable
    }
}
