import ShareDNS

/// Where senders can reach this machine's receiver without discovery.
public enum ReceiverAddresses {
    /// This machine's addresses as a sender types them after --to (`192.168.1.20:47321`,
    /// `[2001:db8::1]:47321`): the routable ones, else loopback.
    public static func reachable(port: UInt16) -> [String] {
        let routable = LocalAddresses.routable().map { entry in
            entry.bytes.count == 4 ? "\(entry.text):\(port)" : "[\(entry.text)]:\(port)"
        }
        return routable.isEmpty ? ["127.0.0.1:\(port)"] : routable
    }
}
