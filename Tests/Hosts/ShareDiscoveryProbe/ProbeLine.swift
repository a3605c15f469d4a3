import Foundation
import ShareDiscovery

/// One line of the probe's output. The tests decode the same fields.
struct ProbeLine: Codable {
    var t: UInt64 = ProbeOutput.monotonicNanoseconds()
    var event: String
    var name: String? = nil
    var from: String? = nil
    var message: String? = nil
    var unavailable: Bool? = nil
    var service: DiscoveredService? = nil
    var services: [DiscoveredService]? = nil
}
