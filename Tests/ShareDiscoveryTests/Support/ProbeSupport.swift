import Foundation
import ShareTestSupport
import Testing

/// The discovery tests' view of the simulated LAN: ShareDiscoveryProbe on a host, its JSON lines.
extension SimulatedLAN {
    /// The namespace prefix of the discovery suite's LAN.
    static let discoveryPrefix = "shdisc"

    /// Creates the hosts for a discovery test.
    convenience init(hosts: [String]) throws {
        try self.init(hosts: hosts, prefix: Self.discoveryPrefix)
    }

    /// The ShareDiscoveryProbe binary (the test target depends on it).
    static let probe: String? = builtExecutable("ShareDiscoveryProbe")

    /// Whether the discovery multi-host tests run: when the machine can, or when required.
    static var probeShouldRun: Bool { isRequired || (missingCapabilities.isEmpty && probe != nil) }

    /// The note shown when they are skipped.
    static var skipNote: Comment {
        Comment(rawValue: probe == nil ? "the ShareDiscoveryProbe binary was not built" : skipReason)
    }

    /// Starts ShareDiscoveryProbe on a host.
    func probe(on host: String, _ arguments: [String]) throws -> HostProcess {
        guard let probe = Self.probe else { throw HarnessError(description: "ShareDiscoveryProbe not built") }
        return try run(on: host, probe, arguments, label: "\(arguments.first ?? "probe") on \(host)")
    }
}

extension HostProcess {
    /// Every probe line so far (lines that are not probe JSON are left out).
    var probeLines: [ProbeLine] {
        lines.compactMap { try? JSONDecoder().decode(ProbeLine.self, from: Data($0.utf8)) }
    }

    /// Waits until a probe line after index `after` satisfies `predicate`.
    @discardableResult
    func waitFor(
        _ what: String, after: Int = -1, within timeout: Duration, where predicate: (ProbeLine) -> Bool
    ) async throws -> (index: Int, line: ProbeLine) {
        let found = try await waitForLine(what, after: after, within: timeout) { text in
            guard let line = try? JSONDecoder().decode(ProbeLine.self, from: Data(text.utf8)) else { return false }
            return predicate(line)
        }
        let line = try JSONDecoder().decode(ProbeLine.self, from: Data(found.line.utf8))
        return (found.index, line)
    }
}
