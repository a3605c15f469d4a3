import Dispatch
import Foundation
import ShareDiscovery
import ShareDocuments
import ShareKit
import ShareTLS
import ShareWire
import Synchronization
import TypeRegistry

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

            With --accept ask (the default) each offer is shown with the sender's name, fingerprint \
            and files, and waits for y/N; on first contact it also shows a verification code to compare \
            with the sender's, and accepting remembers the sender as verified. Without a terminal to ask \
            on, offers are declined. --accept trusted accepts silently from verified peers and refuses \
            everyone else without asking; --accept everyone accepts everything, for a limited time with \
            --everyone-for (then back to ask). Blocked peers ('share trust block') are always refused.
            """,
        options: [
            .value("port", "port", help: "TCP port to listen on (default \(ReceiverConfiguration.defaultPort); 0 picks a free one)."),
            .value("name", "name", help: "The name to be seen as (default: the configured name, else the host name)."),
            .value("dir", "folder", help: "Where to store documents (default: your download folder, e.g. ~/Downloads)."),
            .value("accept", "policy", help: "ask (default): ask for each offer; trusted: only verified peers, silently; everyone: accept all."),
            .value("everyone-for", "duration", help: "With --accept everyone: go back to ask after this long (e.g. 10m, 1h)."),
            .flag("once", help: "Exit after one transfer (0 if it was received, 1 otherwise)."),
            .flag("json", help: "Print one JSON object per line for each event."),
            .flag(
                "service",
                help: "Run as a service (the systemd user unit share-receive.service): readiness to systemd, one log "
                    + "line per event, settings reloaded on SIGHUP, exit 0 on SIGTERM."),
        ]
    )

    let options: ReceiveSettings.Options
    let once: Bool
    let json: Bool
    let service: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        options = try ReceiveSettings.Options(parsed)
        once = parsed.flag("once")
        json = parsed.flag("json")
        service = parsed.flag("service")
        if service && once { throw parsed.usageError("--service and --once cannot be used together") }
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let service = self.service ? ReceiveService(context: context) : nil
        let context = service?.context ?? context
        var node = try NodeLoader.load(context.paths)
        while true {
            let code = try await receive(context, node: node, service: service)
            guard let service, service.takeReloadRequest() else { return code }
            node = service.reloaded(node)
        }
    }

    /// Receives with the settings of `node` until stopped (or, for a service, reloaded).
    private func receive(_ context: CommandContext, node: LocalNode, service: ReceiveService?) async throws(CLIError) -> Int32 {
        let console = context.console
        let settings = try ReceiveSettings.resolve(options, settings: node.settings, paths: context.paths)
        let (name, destination, policy, everyoneFor) = (settings.name, settings.directory, settings.policy, settings.everyoneFor)
        let state = ReceiveReporter(console: console, json: json, once: once, home: context.paths.home, oneLine: service != nil)
        let prompter = Prompter(console: console)
        let history = TransferHistory(paths: context.paths)
        let events = ReceiverEvents(
            decide: { offer in Self.decide(offer, prompter: prompter, state: state) },
            pair: { request in Self.pair(request, prompter: prompter, state: state) },
            progress: { offer, progress in state.progress(offer, progress) },
            finished: { outcome in
                state.historyProblem(history.record(outcome, configDirectory: context.paths.configDirectory))
                state.finished(outcome)
                service?.finished(outcome)
            })
        let receiver: Receiver
        do {
            var configuration = ReceiverConfiguration(port: settings.port, destination: destination, deviceName: name)
            configuration.configDirectory = context.paths.configDirectory
            configuration.policy = policy
            configuration.everyoneUntil = everyoneFor.map { ContinuousClock.now + $0 }
            configuration.fallbackPolicy = .ask
            configuration.useLocalTypes(paths: context.paths, environment: console.environment)
            let teamCAs = TeamCAStore(configDirectory: context.paths.configDirectory)
            configuration.trustAnchors = try teamCAs.anchors()
            configuration.isStillTrusted = { teamCAs.contains($0.fingerprint) }
            receiver = try Receiver(configuration: configuration, identity: node.identity, events: events)
        } catch {
            throw CLIError("\(error)")
        }
        state.receiver.withLock { $0 = receiver }
        // Before anything is printed: a script that saw the first line may signal at once.
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM] + (service?.signals ?? [])) { signal in
            if service?.handle(signal, receiver: receiver) == true { return }
            state.interrupted.withLock { $0 = signal }
            receiver.stop()
        }

        let fingerprint = node.identity.fingerprint
        if json {
            console.line(
                JSON.object([
                    ("event", .string("listening")), ("name", .string(name)), ("port", .int(Int64(receiver.port))),
                    ("fingerprint", .string(fingerprint.hex)), ("directory", .string(destination)),
                    ("accept", .string(policy.rawValue)),
                ]).text())
        } else if service != nil {
            console.line(
                "Receiving as \"\(TerminalText.safe(name))\" on port \(receiver.port) (fingerprint \(fingerprint.grouped)), saving to "
                    + "\(DisplayPath.abbreviate(destination, home: context.paths.home)), accepting: \(Self.describe(policy, for: everyoneFor)).")
        } else {
            console.line("Receiving as \"\(TerminalText.safe(name))\" on port \(receiver.port) (fingerprint \(fingerprint.grouped)).")
            console.line(
                "Saving to \(DisplayPath.abbreviate(destination, home: context.paths.home)); accepting: \(Self.describe(policy, for: everyoneFor)). "
                    + "Press Ctrl-C to stop.")
        }
        service?.listening(name: name, port: receiver.port, policy: Self.describe(policy, for: everyoneFor))
        let everyoneTimer = Task { [everyoneFor] in
            guard let everyoneFor else { return }
            try? await Task.sleep(for: everyoneFor)
            if !Task.isCancelled { state.policyChanged(to: .ask, after: everyoneFor) }
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
        await receiver.runAsync()
        receiver.waitForTransfers()
        advertiser?.close()
        publishing.cancel()
        everyoneTimer.cancel()
        signals.cancel()
        if let signal = state.interrupted.withLock({ $0 }) {
            state.clearProgress()
            return service != nil && signal == SIGTERM ? ExitCode.success : 128 + signal
        }
        return state.exitCode.withLock { $0 }
    }

    /// `ask`, `verified peers only`, `everyone for 10m, then ask`.
    static func describe(_ policy: ReceivePolicy, for duration: Duration?) -> String {
        switch policy {
        case .ask: "ask for each offer"
        case .trusted: "verified peers only, without asking"
        case .everyone: duration.map { "everyone for \(DurationText.format($0)), then ask" } ?? "everyone"
        }
    }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }

    /// Asks the user about an offer (only under `ask`).
    static func decide(_ offer: IncomingOffer, prompter: Prompter, state: ReceiveReporter) -> Decision {
        let who = "\"\(TerminalText.safe(offer.peerName))\""
        guard prompter.canAsk else {
            state.notice(
                "Declined an offer from \(who) at \(offer.peerAddress): no terminal to ask on "
                    + "(run 'share receive --accept everyone' or '--accept trusted' to decide without asking).")
            return Decision(
                .nobodyToAsk,
                message: "it has no terminal to ask its user on; it accepts without asking only with --accept everyone or trusted")
        }
        state.clearProgress()
        let accepted = prompter.confirm(OfferSummary.describe(offer, home: state.home))
        return accepted ? .accept : Decision(.declinedByUser, message: "")
    }

    /// Asks the user to compare the verification code of a pairing request.
    static func pair(_ request: PairingRequest, prompter: Prompter, state: ReceiveReporter) -> Decision {
        guard prompter.canAsk else {
            return Decision(.nobodyToAsk, message: "it has no terminal to compare the verification code on")
        }
        state.clearProgress()
        return prompter.confirm(OfferSummary.describe(request))
            ? .accept : Decision(.declinedByUser, message: "its user did not confirm the verification code")
    }
}
