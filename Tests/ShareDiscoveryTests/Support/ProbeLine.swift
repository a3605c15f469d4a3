import ShareDiscovery

/// One JSON line printed by ShareDiscoveryProbe (see Tests/Hosts/ShareDiscoveryProbe/ProbeLine.swift).
struct ProbeLine: Decodable, Sendable {
    /// CLOCK_MONOTONIC when the probe printed the line, in nanoseconds.
    var t: UInt64
    var event: String
    var name: String?
    var from: String?
    var message: String?
    var unavailable: Bool?
    var service: DiscoveredService?
    var services: [DiscoveredService]?
}
