import Dispatch
import Foundation
import ShareDiscovery
import ShareDocuments
import ShareKit
import ShareTLS
import ShareWire
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `share receive`: listens and accepts documents.
struct ReceiveCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "receive",
        abstract: "Accept documents from nearby machines.",
        discussion: """
            Listens for senders (TLS 1.3; both sides present a certificate), makes this machine \
            visible nearby through avahi-daemon (DNS-SD, _share._tcp), and stores what it accepts \
            in the receive folder. Every file is checked against the sender's SHA-256 and written to a \
            staging folder first; each document appears under its final name whole or not at all, and \
            an existing name is never overwritten ('Report (2).pdf').

            With --accept ask (the default) each offer is shown with the sender's name, fingerprint and \
            files, and waits for y/N; without a terminal to ask on, offers are declined. --accept all \
            takes everything without asking.
            """,
        options: [
            .value("port", "port", help: "TCP port to listen on (default \(ReceiverConfiguration.defaultPort); 0 picks a free one)."),
            .value("name", "name", help: "The name to be seen as (default: the configured name, else the host name)."),
            .value("dir", "folder", help: "Where to store documents (default: your download folder, e.g. ~/Downloads)."),
            .value("accept", "policy", help: "ask (default): ask for each offer; all: accept every offer."),
            .flag("once", help: "Exit after one transfer (0 if it was received, 1 otherwise)."),
            .flag("json", help: "Print one JSON object per line for each event."),
        ]
    )

    enum Policy: String { case ask, all }

    let port: UInt16
    let name: String?
    let directory: String?
    let policy: Policy
    let once: Bool
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        port = UInt16(try parsed.integer("port", in: 0...65535) ?? Int(ReceiverConfiguration.defaultPort))
        directory = parsed.value("dir")
        name = parsed.value("name")
        if let name, let problem = DeviceName.problem(with: name) {
            throw parsed.usageError("Invalid name '\(name)': \(problem)")
        }
        policy = Policy(rawValue: try parsed.choice("accept", ["ask", "all"]) ?? "ask")!
        once = parsed.flag("once")
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let console = context.console
        let node = try NodeLoader.load(context.paths)
        let name = node.deviceName(explicit: self.name)
        let destination = Self.absolute(directory ?? context.paths.downloadDirectory)
        let state = ReceiveState(console: console, json: json, once: once, home: context.paths.home)
        let prompter = Prompter(console: console)
        let policy = self.policy
        let events = ReceiverEvents(
            decide: { offer in Self.decide(offer, policy: policy, prompter: prompter, state: state) },
            progress: { offer, progress in state.progress(offer, progress) },
            finished: { outcome in state.finished(outcome) })
        let receiver: Receiver
        do {
            var configuration = ReceiverConfiguration(port: port, destination: destination, deviceName: name)
            configuration.port = port
            let teamCAs = TeamCAStore(configDirectory: context.paths.configDirectory)
            configuration.trustAnchors = try teamCAs.anchors()
            configuration.isStillTrusted = { teamCAs.contains($0.fingerprint) }
            receiver = try Receiver(configuration: configuration, identity: node.identity, events: events)
        } catch {
            throw CLIError("\(error)")
        }
        state.receiver.withLock { $0 = receiver }
        let fingerprint = node.identity.fingerprint
        if json {
            console.line(
                JSON.object([
                    ("event", .string("listening")), ("name", .string(name)), ("port", .int(Int64(receiver.port))),
                    ("fingerprint", .string(fingerprint.hex)), ("directory", .string(destination)),
                ]).text())
        } else {
            console.line("Receiving as \"\(TerminalText.safe(name))\" on port \(receiver.port) (fingerprint \(fingerprint.grouped)).")
            console.line("Saving to \(DisplayPath.abbreviate(destination, home: context.paths.home)). Press Ctrl-C to stop.")
        }
        let advertiser: ReceiverAdvertiser?
        do {
            advertiser = try ReceiverAdvertiser(name: name, port: receiver.port, fingerprint: fingerprint)
        } catch {
            state.warning("not discoverable: \(error) Senders can still use --to HOST:\(receiver.port).")
            advertiser = nil
        }
        let publishing = Task { [advertiser] in
            guard let advertiser else { return }
            for await event in advertiser.events { state.published(event, port: receiver.port) }
        }
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { signal in
            state.interrupted.withLock { $0 = signal }
            receiver.stop()
        }
        await receiver.runAsync()
        receiver.waitForTransfers()
        advertiser?.close()
        publishing.cancel()
        signals.cancel()
        if let signal = state.interrupted.withLock({ $0 }) {
            state.clearProgress()
            return 128 + signal
        }
        return state.exitCode.withLock { $0 }
    }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }

    static func decide(_ offer: IncomingOffer, policy: Policy, prompter: Prompter, state: ReceiveState) -> Decision {
        switch policy {
        case .all:
            return .accept
        case .ask:
            let who = "\"\(TerminalText.safe(offer.peerName))\""
            guard prompter.canAsk else {
                state.notice(
                    "Declined an offer from \(who) at \(offer.peerAddress): no terminal to ask on "
                        + "(run 'share receive --accept all' to accept without asking).")
                return Decision(
                    .nobodyToAsk,
                    message: "it has no terminal to ask its user on; it accepts without asking only with --accept all")
            }
            state.clearProgress()
            let accepted = prompter.confirm(OfferSummary.describe(offer, home: state.home))
            return accepted ? .accept : Decision(.declinedByUser, message: "")
        }
    }
}

/// Shared state of a running `share receive` (callbacks come from connection threads).
final class ReceiveState: Sendable {
    let console: Console
    let json: Bool
    let once: Bool
    let home: String
    let receiver = Mutex<Receiver?>(nil)
    let exitCode = Mutex<Int32>(ExitCode.success)
    let interrupted = Mutex<Int32?>(nil)
    private let progressLine: ProgressLine

    init(console: Console, json: Bool, once: Bool, home: String) {
        self.console = console
        self.json = json
        self.once = once
        self.home = home
        self.progressLine = ProgressLine(console: console, label: "Receiving")
    }

    func progress(_ offer: IncomingOffer, _ progress: TransferProgress) {
        progressLine.update(progress)
    }

    func clearProgress() { progressLine.finish() }

    /// Reports what happened to the DNS-SD publication.
    func published(_ event: PublisherEvent, port: UInt16) {
        func emit(_ fields: [(String, JSON)]) { console.line(JSON.object(fields).text()) }
        switch event {
        case .published(let name):
            if json { emit([("event", .string("published")), ("name", .string(name))]) } else {
                console.line("Visible nearby as \"\(TerminalText.safe(name))\".")
            }
        case .renamed(let from, let to):
            if json { emit([("event", .string("renamed")), ("from", .string(from)), ("to", .string(to))]) } else {
                console.line("The name \"\(TerminalText.safe(from))\" is taken nearby; visible as \"\(TerminalText.safe(to))\" instead.")
            }
        case .daemonUnavailable(let error), .failed(let error):
            if json { emit([("event", .string("not-discoverable")), ("reason", .string(error.description))]) } else {
                warning("not discoverable: \(error) Senders can still use --to HOST:\(port).")
            }
        case .daemonReturned:
            if json { emit([("event", .string("discoverable-again"))]) } else {
                console.line("avahi-daemon is available again; publishing.")
            }
        }
    }

    func warning(_ text: String) {
        clearProgress()
        console.warning(text)
    }

    func notice(_ text: String) {
        clearProgress()
        if !json { console.err(text + "\n") }
    }

    func finished(_ outcome: IncomingOutcome) {
        clearProgress()
        var ends = true
        switch outcome {
        case .received(let transfer):
            if json {
                console.line(ReportJSON.received(transfer).text())
            } else {
                let who = "\"\(TerminalText.safe(transfer.peerName))\""
                let certified = transfer.peerTrustedBy.map { ", certified by the team CA \"\(TerminalText.safe($0.displayName))\"" } ?? ""
                let count = transfer.items.count == 1 ? "1 item" : "\(transfer.items.count) items"
                let files = transfer.files.count == 1 ? "1 file" : "\(transfer.files.count) files"
                console.line(
                    "Received \(count) from \(who) (\(transfer.peerFingerprint.grouped.prefix(19))\(certified)): "
                        + "\(ByteCount.format(transfer.bytes)), \(files) in \(String(format: "%.1f", transfer.seconds)) s, SHA-256 verified.")
                for item in transfer.items {
                    console.line("  " + TerminalText.safe(DisplayPath.abbreviate(item.path, home: home)) + (item.isBundle ? "/" : ""))
                }
            }
        case .declined(let offer, let decision):
            exitCode.withLock { $0 = ExitCode.failure }
            if json {
                console.line(
                    JSON.object([
                        ("event", .string("declined")),
                        ("peer", ReportJSON.peer(name: offer.peerName, fingerprint: offer.peerFingerprint, address: offer.peerAddress, trustedBy: offer.peerTrustedBy)),
                        ("reason", .string(decision.message.isEmpty ? decision.code.description : decision.message)),
                    ]).text())
            } else if decision.code == .declinedByUser || decision.code == .insufficientSpace {
                let reason = decision.message.isEmpty ? "" : ": \(decision.message)"
                console.err("Declined the offer from \"\(TerminalText.safe(offer.peerName))\"\(reason).\n")
            }
        case .failed(let name, let fingerprint, let address, let failure):
            exitCode.withLock { $0 = ExitCode.failure }
            let who = name.map { "\"\(TerminalText.safe($0))\" at \(address)" } ?? address
            if json {
                console.line(
                    JSON.object([
                        ("event", .string("failed")),
                        ("peer", ReportJSON.peer(name: name ?? "", fingerprint: fingerprint, address: address)),
                        ("error", .string(failure.description)),
                    ]).text())
            } else {
                console.error("the transfer from \(who) failed: \(failure); nothing was kept")
            }
        case .refused(let address, let reason):
            ends = false
            if json {
                console.line(
                    JSON.object([("event", .string("refused")), ("address", .string(address)), ("reason", .string(reason))]).text())
            } else {
                console.err("Refused a connection from \(address.isEmpty ? "a peer" : address): \(reason)\n")
            }
        }
        if once && ends {
            receiver.withLock { $0?.stop() }
        }
    }
}

/// The text of an offer shown before asking y/N.
enum OfferSummary {
    static func describe(_ offer: IncomingOffer, home: String) -> String {
        let manifest = offer.manifest
        let items = manifest.items.count == 1 ? "1 item" : "\(manifest.items.count) items"
        var lines = [
            "\"\(TerminalText.safe(offer.peerName))\" at \(offer.peerAddress) offers \(items), \(ByteCount.format(manifest.totalBytes)):",
            "  fingerprint \(offer.peerFingerprint.grouped)",
        ]
        if let authority = offer.peerTrustedBy {
            lines.append("  certified by the team CA \"\(TerminalText.safe(authority.displayName))\"")
        } else if let problem = offer.peerCATrustProblem {
            lines.append("  not certified by a team CA: \(TerminalText.safe(problem))")
        }
        let shown = manifest.items.prefix(20)
        let width = min(40, shown.map { TerminalText.safe($0.name).count + ($0.isBundle ? 1 : 0) }.max() ?? 0)
        for item in shown {
            let name = TerminalText.safe(item.name) + (item.isBundle ? "/" : "")
            let size =
                item.isBundle
                ? "\(item.fileCount) \(item.fileCount == 1 ? "file" : "files"), \(ByteCount.format(item.byteCount))"
                : ByteCount.format(item.byteCount)
            let type = item.declaredType.isEmpty ? "" : "  (\(item.declaredType))"
            lines.append("  \(name.rightPadded(width))  \(size)\(type)")
        }
        if manifest.items.count > shown.count { lines.append("  ... and \(manifest.items.count - shown.count) more") }
        return lines.joined(separator: "\n") + "\nAccept?"
    }
}

/// Runs a handler when one of `signals` arrives (instead of the default of dying).
final class SignalWatcher: Sendable {
    // Dispatch sources are thread-safe; they are only created here and cancelled once.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
