import Foundation
import ShareDocuments
import ShareKit
import ShareTransport

/// `share send PATH... --to PEER`: sends files and folders in one transfer.
struct SendCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "send",
        abstract: "Send files and folders to a receiver.",
        discussion: """
            Sends any mix of files and folders in one transfer. A folder is sent as one document (a \
            bundle) with its relative paths, empty folders, permissions and modification times; a \
            symbolic link inside it is kept only when it points inside the folder. The receiver checks \
            every file's SHA-256 before it keeps anything.
            """,
        arguments: [ArgumentSpec(name: "path", help: "Files and folders to send.", repeating: true)],
        options: [
            .value("to", "peer", help: "The receiver, as HOST:PORT (e.g. 192.168.1.20:47321 or [fe80::1%eth0]:47321)."),
            .flag("json", help: "Print the result as a JSON object."),
        ],
        usageOverride: "<path> ... --to <peer> [--json]"
    )

    let paths: [String]
    let target: String
    let endpoint: Endpoint
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        paths = parsed.positionals
        json = parsed.flag("json")
        guard let target = parsed.value("to") else { throw parsed.usageError("Missing expected option '--to <peer>'") }
        self.target = target
        guard let endpoint = Endpoint(parsing: target) else {
            throw parsed.usageError("'\(target)' is not HOST:PORT (e.g. 192.168.1.20:47321)")
        }
        self.endpoint = endpoint
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let console = context.console
        let node = try NodeLoader.load(context.paths)
        let prepared: PreparedSend
        do {
            prepared = try PreparedSend.scan(paths, registry: LocalTypes.senderRegistry(context))
        } catch {
            throw CLIError(error.description)
        }
        let progressLine = ProgressLine(console: console, label: "Sending to \(endpoint)")
        let options = SendOptions(deviceName: node.deviceName())
        do {
            let report = try await Sender.sendAsync(
                prepared, to: endpoint, identity: node.identity, options: options,
                progress: { progressLine.update($0) })
            progressLine.finish()
            if json {
                console.line(ReportJSON.sent(report).text())
            } else {
                printReport(report, console: console)
            }
            return ExitCode.success
        } catch {
            progressLine.finish()
            if json { console.line(ReportJSON.sendFailed(to: target, error: error.description).text()) }
            throw CLIError(error.description)
        }
    }

    private func printReport(_ report: SendReport, console: Console) {
        let count = report.items.count == 1 ? "1 item" : "\(report.items.count) items"
        let files = report.files.count == 1 ? "1 file" : "\(report.files.count) files"
        let rate = report.seconds > 0 ? ", \(ByteCount.format(UInt64(Double(report.bytes) / report.seconds)))/s" : ""
        console.line(
            "Sent \(count) to \"\(TerminalText.safe(report.peerName))\" at \(report.endpoint): "
                + "\(ByteCount.format(report.bytes)), \(files) in \(String(format: "%.1f", report.seconds)) s\(rate), SHA-256 verified.")
        for item in report.items {
            console.line("  \(TerminalText.safe(item.name))\(item.isBundle ? "/" : "") -> \(TerminalText.safe(item.location))")
        }
    }
}
