import Foundation
import ShareDiscovery
import ShareDocuments
import ShareKit
import ShareTLS
import ShareTransport
import TypeRegistry

/// `share send PATH... --to PEER`: sends files and folders in one transfer, to one or more peers.
struct SendCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "send",
        abstract: "Send files and folders to a receiver.",
        discussion: """
            Sends any mix of files and folders in one transfer. A folder is sent as one document (a \
            bundle) with its relative paths, empty folders, permissions and modification times; a \
            symbolic link inside it is kept only when it points inside the folder. The receiver checks \
            every file's SHA-256 before it keeps anything.

            PEER is a name seen by 'share peers' (any case, or a unique beginning of it), a prefix of \
            a peer's fingerprint, or HOST:PORT. A peer found by name must present the key whose \
            fingerprint it advertises, or nothing is sent. Several --to send the same documents to \
            several peers at once. Without --to, on a terminal, share lists the receivers nearby as \
            they appear and you choose: up and down move, space chooses several, typing filters by \
            name, enter sends, escape cancels.

            '-' sends standard input as one file called --name: it is saved to a private temporary \
            file first (in $TMPDIR, else /tmp; never filling the disk), so its size and SHA-256 are \
            known before it is offered, and deleted afterwards.

            On first contact with a peer, both sides show a verification code; on a terminal you are \
            asked to confirm that the receiver shows the same one, and the receiver is then remembered \
            as verified. A verified peer that comes back with a different key is refused.
            """,
        arguments: [ArgumentSpec(name: "path", help: "Files and folders to send; '-' for standard input (with --name).", repeating: true)],
        options: [
            .value(
                "to", "peer",
                help: "A receiver: a name, a fingerprint prefix, or HOST:PORT (e.g. 192.168.1.20:47321). Repeat to send to several.",
                repeating: true),
            .value("name", "name", help: "The name standard input ('-') gets on the receiver."),
            .flag("json", help: "Print the result as JSON, one object per peer and line."),
        ],
        usageOverride: "<path> ... [--to <peer> ...] [--name <name>] [--json]"
    )

    let paths: [String]
    let targets: [String]
    let json: Bool
    let input: StandardInput?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        paths = parsed.positionals
        json = parsed.flag("json")
        input = try StandardInput(parsed)
        let values = parsed.all("to")
        if values.isEmpty && input != nil {
            throw parsed.usageError(
                "Missing expected option '--to <peer>' (standard input is what is sent, so receivers cannot be chosen on the terminal)")
        }
        var targets: [String] = []
        for value in values where !targets.contains(value) {
            if value.trimmingTrailingSpaces().isEmpty { throw parsed.usageError("The value for '--to' is empty") }
            targets.append(value)
        }
        self.targets = targets
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let console = context.console
        if targets.isEmpty { try PeerTargets.requireTerminal(console) }
        let node = try NodeLoader.load(context.paths)
        let spool = try input?.spool(environment: console.environment)
        defer { spool?.remove() }
        let prepared: PreparedSend
        do {
            prepared = try PreparedSend.scan(paths.map { $0 == "-" ? spool?.path ?? $0 : $0 }, registry: LocalTypes.senderRegistry(context))
        } catch {
            throw CLIError(error.description)
        }
        let anchors: TrustAnchors
        do {
            anchors = try TeamCAStore(configDirectory: context.paths.configDirectory).anchors()
        } catch {
            throw CLIError(TerminalText.safe(error.description))
        }
        let (targets, destinations) = try await PeerTargets.resolveOrPick(self.targets, console: console, node: node)
        let board = ProgressBoard(console: console, labels: destinations.map(\.label))
        let prompter = Prompter(console: console)
        let canConfirm = console.stdinIsTerminal && console.stderrIsTerminal
        let results = await withTaskGroup(of: (Int, Result<SendReport, SendError>).self) { group in
            for (index, destination) in destinations.enumerated() {
                var options = SendOptions(deviceName: node.deviceName())
                options.expectedFingerprintPrefix = destination.expectedFingerprintPrefix
                options.configDirectory = node.paths.configDirectory
                if canConfirm {
                    options.confirmFirstContact = { contact in
                        board.pause { prompter.confirm(OfferSummary.describe(contact)) }
                    }
                }
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
        let history = TransferHistory(paths: context.paths)
        HistoryCommand.warn(history.record(results, to: targets, manifest: prepared.manifest, configDirectory: node.paths.configDirectory), console)

        var failures = 0
        for (destination, result) in zip(destinations, results) {
            switch result {
            case .success(let report):
                if report.peerVerification == .unverified && !json {
                    console.err(
                        "Note: \"\(TerminalText.safe(report.peerName))\" is not verified; compare codes with "
                            + "'share trust verify \(report.peerFingerprint.prefix(8))' to remember it.\n")
                }
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
