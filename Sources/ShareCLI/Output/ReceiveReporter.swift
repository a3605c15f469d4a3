import Foundation
import ShareDocuments
import ShareKit
import ShareTLS
import Synchronization
import TypeRegistry

/// Reports what a running `share receive` does, on the terminal or as JSON lines (callbacks come
/// from connection threads), and holds its shared state.
final class ReceiveReporter: Sendable {
    let console: Console
    let json: Bool
    let once: Bool
    let home: String
    /// Whether each event is one line (a service's journal): a received transfer's items follow
    /// its summary on the same line.
    let oneLine: Bool
    let receiver = Mutex<Receiver?>(nil)
    let exitCode = Mutex<Int32>(ExitCode.success)
    let interrupted = Mutex<Int32?>(nil)
    private let progressLine: ProgressLine
    private let refusals = Mutex(RefusalThrottle())

    init(console: Console, json: Bool, once: Bool, home: String, oneLine: Bool = false) {
        self.console = console
        self.oneLine = oneLine
        self.json = json
        self.once = once
        self.home = home
        self.progressLine = ProgressLine(console: console, label: "Receiving")
    }

    func progress(_ offer: IncomingOffer, _ progress: TransferProgress) {
        progressLine.update(progress)
    }

    func clearProgress() { progressLine.finish() }

    /// What a sender can type instead of a name, when this receiver is not visible nearby.
    static func reachableByAddress(_ addresses: [String]) -> String {
        "Senders can still use --to \(addresses.joined(separator: " or "))."
    }

    /// Reports what happened to the DNS-SD publication; `addresses` are where senders can reach this
    /// receiver without discovery.
    func published(_ event: ReceiverAdvertiser.Event, addresses: [String]) {
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
                warning("not discoverable: \(error) \(Self.reachableByAddress(addresses))")
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

    /// Everyone mode ended.
    func policyChanged(to policy: ReceivePolicy, after duration: Duration) {
        clearProgress()
        if json {
            console.line(JSON.object([("event", .string("policy")), ("accept", .string(policy.rawValue))]).text())
        } else {
            console.line("Everyone mode ended after \(DurationText.format(duration)); now accepting: \(ReceiveCommand.describe(policy, for: nil)).")
        }
    }

    /// Says (as a warning) that a transfer could not be recorded in the history.
    func historyProblem(_ problem: ConfigurationError?) {
        clearProgress()
        HistoryCommand.warn(problem, console)
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
                ReportJSON.printLine(ReportJSON.received(transfer), verifiedFiles: transfer.files, to: console)
            } else {
                let who =
                    transfer.verifiedNow
                    ? "\"\(TerminalText.safe(transfer.peerName))\" (verified now)"
                    : OfferSummary.who(
                        name: transfer.peerName, pinnedName: transfer.pinnedName, claimsNameOf: transfer.claimsNameOf,
                        trustedBy: nil)
                let fromWhom = transfer.localSend.map { "\(OfferSummary.localSendWho($0)) at \(transfer.peerAddress)" }
                    ?? "\(who) (\(OfferSummary.fingerprint(transfer.peerFingerprint))"
                let certified = transfer.peerTrustedBy.map { ", certified by the team CA \"\(TerminalText.safe($0.displayName))\"" } ?? ""
                let count = transfer.items.count == 1 ? "1 item" : "\(transfer.items.count) items"
                let content = ContentCount(texts: transfer.items.filter(\.isNote).count, files: transfer.files.count)
                let summary =
                    "Received \(count) from \(fromWhom)\(certified)\(transfer.localSend == nil ? ")" : ""): "
                    + "\(ByteCount.format(transfer.bytes)), \(content.text) in \(String(format: "%.1f", transfer.seconds)) s"
                    + (transfer.resumedBytes > 0 ? " (continued: \(ByteCount.format(transfer.resumedBytes)) were already here)" : "")
                    + (transfer.checkedAgainstSender ? content.verified : " (the sender gave no SHA-256 to check).")
                let items = ReceivedReport.itemLines(transfer, home: home)
                if oneLine {
                    console.line(summary + " " + items.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; "))
                } else {
                    console.line(summary)
                    for line in items { console.line(line) }
                }
            }
        case .declined(let offer, let decision):
            // Automatic refusals (policy, blocked, too many offers) do not end a --once receiver:
            // a stranger must not be able to stop it.
            ends = decision.code != .refusedByPolicy && decision.code != .busy
            if ends { exitCode.withLock { $0 = ExitCode.failure } }
            if json {
                console.line(
                    JSON.object([
                        ("event", .string("declined")),
                        ("peer", ReportJSON.peer(offer)),
                        ("code", .string(decision.code.name)),
                        ("reason", .string(decision.message.isEmpty ? decision.code.description : decision.message)),
                    ]).text())
            } else if decision.code != .nobodyToAsk {
                let reason = decision.message.isEmpty ? "" : ": \(decision.message)"
                let who = offer.localSend.map(OfferSummary.localSendWho) ?? "\"\(TerminalText.safe(offer.peerName))\""
                console.err("Declined the offer from \(who)\(reason).\n")
            }
        case .failed(let name, let fingerprint, let address, let failure, let keptBytes):
            exitCode.withLock { $0 = ExitCode.failure }
            let who = name.map { "\"\(TerminalText.safe($0))\" at \(address)" } ?? address
            if json {
                console.line(
                    JSON.object([
                        ("event", .string("failed")),
                        ("peer", ReportJSON.peer(name: name, fingerprint: fingerprint, address: address)),
                        ("error", .string("\(failure)")),
                        ("keptBytes", .int(Int64(keptBytes))),
                    ]).text())
            } else {
                console.error("the transfer from \(who) failed: \(failure); \(TransferNotice.keptText(keptBytes))")
            }
        case .paired(let request, let confirmed):
            ends = false
            let who = "\"\(TerminalText.safe(request.peerName))\""
            if json {
                console.line(
                    JSON.object([
                        ("event", .string("paired")),
                        ("peer", ReportJSON.peer(name: request.peerName, fingerprint: request.peerFingerprint, address: request.peerAddress)),
                        ("confirmed", .bool(confirmed)),
                    ]).text())
            } else if confirmed {
                console.line("Verified \(who) (\(request.peerFingerprint.grouped.prefix(19))): it is remembered.")
            } else {
                console.err("Did not verify \(who) at \(request.peerAddress).\n")
            }
        case .refusedSender(let name, let fingerprint, let address, let decision, let namesake):
            // A refusal by key or policy does not end a --once receiver: a stranger must not be able to stop it.
            ends = false
            if json {
                console.line(
                    JSON.object([
                        ("event", .string("declined")),
                        ("peer", ReportJSON.peer(name: name, fingerprint: fingerprint, address: address, claimsNameOf: namesake)),
                        ("code", .string(decision.code.name)),
                        ("reason", .string(decision.message.isEmpty ? decision.code.description : decision.message)),
                    ]).text())
            } else {
                console.err(
                    "Refused \(OfferSummary.who(name: name, pinnedName: nil, claimsNameOf: namesake, trustedBy: nil)) "
                        + "(\(OfferSummary.fingerprint(fingerprint))) at \(address) before "
                        + "its offer: \(decision.message.isEmpty ? decision.code.description : decision.message).\n")
            }
        case .refused(let address, let reason):
            ends = false
            let host = address.split(separator: ":").dropLast().joined(separator: ":")
            guard let leftOut = refusals.withLock({ $0.admit(host) }) else { break }
            if json {
                console.line(
                    JSON.object([
                        ("event", .string("refused")), ("address", .string(address)), ("reason", .string(reason)),
                        ("notReported", .int(leftOut)),
                    ]).text())
            } else {
                let more = leftOut == 0 ? "" : " (\(leftOut) more refused connections were not reported)"
                console.err("Refused a connection from \(address.isEmpty ? "a peer" : address): \(reason)\(more)\n")
            }
        }
        if once && ends {
            receiver.withLock { $0?.stop() }
        }
    }
}

