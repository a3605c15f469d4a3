import Foundation
import ShareDiscovery
import ShareDocuments
import ShareKit
import ShareTLS
import ShareTransport

/// `share send PATH... --to PEER`: sends files and folders in one transfer, to one or more peers.
struct SendCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "send",
        abstract: "Send files and folders to a receiver.",
        discussion: """
            Sends any mix of files and folders in one transfer. A folder is sent as one document (a \\
            bundle) with its relative paths, empty folders, permissions and modification times; a \\
            symbolic link inside it is kept only when it points inside the folder. The receiver checks \\
            every file's SHA-256 before it keeps anything.

            PEER is a name seen by 'share peers' (any case, or a unique beginning of it), a prefix of \\
            a peer's fingerprint, or HOST:PORT. A peer found by name must present the key whose \\
            fingerprint it advertises, or nothing is sent. Several --to send the same documents to \\
            several peers at once.
            """,
        arguments: [ArgumentSpec(name: "path", help: "Files and folders to send.", repeating: true)],
        options: [
            .value(
                "to", "peer",
                help: "A receiver: a name, a fingerprint prefix, or HOST:PORT (e.g. 192.168.1.20:47321). Repeat to send to several.",
                repeating: true),
            .flag("json", help: "Print the result as JSON, one object per peer and line."),
        ],
        usageOverride: "<path> ... --to <peer> [--to <peer> ...] [--json]"
    )

    /// What a `--to` names.
    enum Target {
        case address(Endpoint)
        case peer(String)
    }

    let paths: [String]
    let targets: [(text: String, target: Target)]
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        paths = parsed.positionals
        json = parsed.flag("json")
        let values = parsed.all("to")
        guard !values.isEmpty else { throw parsed.usageError("Missing expected option '--to <peer>'") }
        var targets: [(String, Target)] = []
        for value in values {
            if value.trimmingTrailingSpaces().isEmpty { throw parsed.usageError("The value for '--to' is empty") }
            if targets.contains(where: { $0.0 == value }) { continue }
            targets.append((value, Self.looksLikeAddress(value) ? .address(Endpoint(parsing: value)!) : .peer(value)))
        }
        self.targets = targets
    }

    /// `HOST:PORT` and `[IPV6]:PORT` are addresses; anything else is looked up as a peer.
    static func looksLikeAddress(_ text: String) -> Bool {
        Endpoint(parsing: text) != nil && (text.hasPrefix("[") || text.split(separator: ":").count == 2)
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let console = context.console
        let node = try NodeLoader.load(context.paths)
        let prepared: PreparedSend
        do {
            prepared = try PreparedSend.scan(paths)
        } catch {
            throw CLIError(error.description)
        }
        let anchors: TrustAnchors
        do {
            anchors = try TeamCAStore(configDirectory: context.paths.configDirectory).anchors()
        } catch {
            throw CLIError(TerminalText.safe(error.description))
        }
        let destinations = try await resolve(node: node)
        let board = ProgressBoard(console: console, labels: destinations.map(\.label))
        let results = await withTaskGroup(of: (Int, Result<SendReport, SendError>).self) { group in
            for (index, destination) in destinations.enumerated() {
                var options = SendOptions(deviceName: node.deviceName())
                options.expectedFingerprintPrefix = destination.expectedFingerprintPrefix
                options.trustAnchors = anchors
                group.addTask {
                    do throws(SendError) {
                        let report = try await Sender.sendAsync(
                            prepared, toFirstOf: destination.endpoints, identity: node.identity, options: options,
                            progress: { board.update(index, $0) })
                        return (index, .success(report))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results = [Result<SendReport, SendError>?](repeating: nil, count: destinations.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
        board.finish()

        var failures = 0
        for (destination, result) in zip(destinations, results) {
            switch result {
            case .success(let report):
                remember(report, node: node, console: console)
                if json { console.line(ReportJSON.sent(report).text()) } else { printReport(report, console: console) }
            case .failure(let error):
                failures += 1
                if json { console.line(ReportJSON.sendFailed(to: destination.label, error: error.description).text()) }
                if destinations.count == 1 { throw CLIError(error.description) }
                console.error("sending to \(destination.label) failed: \(error)")
            }
        }
        return failures == 0 ? ExitCode.success : ExitCode.failure
    }

    /// Where one `--to` goes.
    struct Destination: Sendable {
        var label: String
        var endpoints: [Endpoint]
        var expectedFingerprintPrefix: String?
    }

    /// Resolves every `--to`, looking peers up through Avahi only when one is a name.
    private func resolve(node: LocalNode) async throws(CLIError) -> [Destination] {
        var peers: [NearbyPeer] = []
        if targets.contains(where: { if case .peer = $0.target { true } else { false } }) {
            let services: [DiscoveredService]
            do {
                services = try await ServiceBrowser.snapshot(timeout: .seconds(5))
            } catch {
                let names = targets.compactMap { if case .peer(let name) = $0.target { name } else { nil } }
                throw CLIError(
                    "cannot look up \(names.map { "'\(TerminalText.safe($0))'" }.joined(separator: ", ")): \(error) "
                        + "Sending to HOST:PORT works without it.",
                    exitCode: error.isDaemonUnavailable ? ExitCode.unavailable : ExitCode.failure)
            }
            do {
                peers = try PeerDirectory.nearby(services, node: node)
            } catch {
                throw CLIError(error.description)
            }
        }
        var destinations: [Destination] = []
        for (_, target) in targets {
            switch target {
            case .address(let endpoint):
                destinations.append(Destination(label: endpoint.description, endpoints: [endpoint]))
            case .peer(let query):
                switch PeerResolver.resolve(query, among: peers) {
                case .success(let peer):
                    destinations.append(
                        Destination(
                            label: "\"\(TerminalText.safe(peer.name))\"", endpoints: peer.endpoints,
                            expectedFingerprintPrefix: peer.fingerprintPrefix))
                case .failure(let failure):
                    throw CLIError(failure.description)
                }
            }
        }
        return destinations
    }

    /// After a successful send the receiver is known (trust on first use).
    private func remember(_ report: SendReport, node: LocalNode, console: Console) {
        do {
            try TrustStore.update(in: node.paths.configDirectory) { store in
                store.record(report.peerFingerprint, name: report.peerName, verification: .firstUse)
            }
        } catch {
            console.warning("could not record \"\(TerminalText.safe(report.peerName))\" as known: \(error)")
        }
    }

    private func printReport(_ report: SendReport, console: Console) {
        let count = report.items.count == 1 ? "1 item" : "\(report.items.count) items"
        let certified = report.peerTrustedBy.map { " (certified by the team CA \"\(TerminalText.safe($0.displayName))\")" } ?? ""
        let files = report.files.count == 1 ? "1 file" : "\(report.files.count) files"
        let rate = report.seconds > 0 ? ", \(ByteCount.format(UInt64(Double(report.bytes) / report.seconds)))/s" : ""
        console.line(
            "Sent \(count) to \"\(TerminalText.safe(report.peerName))\" at \(report.endpoint)\(certified): "
                + "\(ByteCount.format(report.bytes)), \(files) in \(String(format: "%.1f", report.seconds)) s\(rate), SHA-256 verified.")
        for item in report.items {
            console.line("  \(TerminalText.safe(item.name))\(item.isBundle ? "/" : "") -> \(TerminalText.safe(item.location))")
        }
    }
}
