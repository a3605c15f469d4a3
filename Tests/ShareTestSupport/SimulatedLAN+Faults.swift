/// Link faults on simulated hosts (Tests/Hosts/README.md, "Fault lab"): rate limits with tc's token
/// bucket filter (tbf; netem is not available on every kernel the tests run on), a link taken down
/// and up, and how soon TCP gives up on a silent peer.
extension SimulatedLAN {
    /// Limits the host's link to `bitsPerSecond` in both directions (`lan.sh rate`): a tbf queue on the
    /// host's eth0 and on its switch port. `burst` and `latency` are tc-tbf(8) values.
    ///
    /// ```swift
    /// try lan.limitRate("a", bitsPerSecond: 100_000_000)   // a LAN of 100 Mbit/s
    /// ```
    public func limitRate(_ host: String, bitsPerSecond: Int, burst: String = "64kb", latency: String = "50ms") throws {
        _ = try query(["rate", host, "\(bitsPerSecond)bit", burst, latency])
    }

    /// Removes the host's rate limit (`lan.sh unrate`).
    public func removeRateLimit(_ host: String) throws { _ = try query(["unrate", host]) }

    /// Takes the host's link down (`lan.sh link HOST down`): its switch port goes down, so the host
    /// keeps its addresses and routes, sees no carrier, and nothing passes either way. Open TCP
    /// connections survive until their retransmissions give up (see ``setTCPRetries(_:_:)``).
    public func linkDown(_ host: String) throws { _ = try query(["link", host, "down"]) }

    /// Brings the host's link up again.
    public func linkUp(_ host: String) throws { _ = try query(["link", host, "up"]) }

    /// Sets how many times TCP on the host retransmits before it drops a connection whose peer
    /// went silent (`net.ipv4.tcp_retries2` of its namespace): 3 gives up after about 3 seconds
    /// instead of about 15 minutes, so a link taken down ends a connection within a test's time.
    public func setTCPRetries(_ host: String, _ count: Int) throws {
        _ = try query(["tcp-retries", host, String(count)])
    }
}
