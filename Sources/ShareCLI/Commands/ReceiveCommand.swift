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

            With --domain (or wideArea.domain in settings.json) the receiver is also published in \
            that DNS domain, with dynamic updates signed by the --dns-key, so that machines on other \
            subnets find it too; its entry follows address changes and is removed when it stops.
            """,
        options: [
            .value("port", "port", help: "TCP port to listen on (default \(ReceiverConfiguration.defaultPort); 0 picks a free one)."),
            .value("name", "name", help: "The name to be seen as (default: the configured name, else the host name)."),
            .value("dir", "folder", help: "Where to store documents (default: your download folder, e.g. ~/Downloads)."),
            .value("accept", "policy", help: "ask (default): ask for each offer; trusted: only verified peers, silently; everyone: accept all."),
            .value("everyone-for", "duration", help: "With --accept everyone: go back to ask after this long (e.g. 10m, 1h)."),
            .flag(
                "keep-executables",
                help: "Keep execute bits on files inside received folders (for code between your own machines); files are never executable otherwise."),
            .flag("once", help: "Exit after one transfer (0 if it was received, 1 otherwise)."),
            .flag("json", help: "Print one JSON object per line for each event."),
            .flag(
                "service",
                help: "Run as a service (the systemd user unit share-receive.service): readiness to systemd, one log "
                    + "line per event, settings reloaded on SIGHUP, exit 0 on SIGTERM."),
        ] + WideAreaReceive.Options.specs
    )

    let options: ReceiveSettings.Options
    let once: Bool
    let json: Bool
    let service: Bool
    let wideArea: WideAreaReceive.Options

    init(_ parsed: ParsedArguments) throws(UsageError) {
        options = try ReceiveSettings.Options(parsed)
        once = parsed.flag("once")
        json = parsed.flag("json")
        service = parsed.flag("service")
        if service && once { throw parsed.usageError("--service and --once cannot be used together") }
        wideArea = try WideAreaReceive.Options(parsed)
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
        let executableBits = settings.executableBits
        let publication = try WideAreaReceive.publication(
            wideArea, settings: node.settings, workingDirectory: FileManager.default.currentDirectoryPath)
        let state = ReceiveReporter(console: console, json: json, once: once, home: context.paths.home, oneLine: service != nil)
        let prompter = Prompter(console: console, timeout: Self.promptTimeout(console.environment))
        let history = TransferHistory(paths: context.paths)
        let events = ReceiverEvents(
            canAsk: { prompter.canAsk },
            decide: { [executableBits] offer, ticket in
                Self.decide(offer, ticket: ticket, prompter: prompter, state: state, executableBits: executableBits)
            },
            pair: { request, ticket in Self.pair(request, ticket: ticket, prompter: prompter) },
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
            configuration.promptTimeout = prompter.timeout
            if let stall = SendCommand.stallTimeout(console.environment) { configuration.idleTimeout = stall }
            configuration.partialKeep = Self.partialStore(inbox: "", environment: console.environment).keep
            configuration.executableBits = executableBits
            configuration.decodesZstd = settings.compression
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
            for await event in advertiser.events {
                switch event {
                case .published(let name), .renamed(_, let name): receiver.published(as: name)
                default: break
                }
                state.published(event, port: receiver.port)
            }
        }
        let wideAreaPublisher = publication.map {
            WideAreaPublisher($0, name: name, port: receiver.port, fingerprint: fingerprint)
        }
        let wideAreaReports = Task { [wideAreaPublisher] in
            guard let wideAreaPublisher else { return }
            for await event in wideAreaPublisher.events { state.wideArea(event) }
        }
        await receiver.runAsync()
        receiver.waitForTransfers()
        advertiser?.close()
        await wideAreaPublisher?.stop()
        await wideAreaReports.value
        publishing.cancel()
        everyoneTimer.cancel()
        signals.cancel()
        if let signal = state.interrupted.withLock({ $0 }) {
            state.clearProgress()
            return service != nil && signal == SIGTERM ? ExitCode.success : 128 + signal
        }
        return state.exitCode.withLock { $0 }
    }

    /// System folders nobody should receive into (documents would land among the system's files).
    static let systemFolders = ["/", "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/proc", "/run", "/sbin", "/sys", "/usr", "/var"]

    /// Why `folder` is no place to receive into, if it is not.
    static func unsafeFolderProblem(_ folder: String) -> String? {
        if folder.trimmingCharacters(in: .whitespaces).isEmpty { return "the folder name is empty" }
        let path = URL(fileURLWithPath: absolute(folder)).standardizedFileURL.resolvingSymlinksInPath().path
        for system in systemFolders where path == system || (system != "/" && ["/proc", "/sys", "/dev"].contains(system) && path.hasPrefix(system + "/")) {
            return "it is the system folder '\(system)'; choose a folder of your own"
        }
        return nil
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

    /// How long a question waits for an answer: `SHARE_PROMPT_TIMEOUT` seconds (for tests and
    /// special setups), else 5 minutes.
    static func promptTimeout(_ environment: [String: String]) -> Duration {
        if let text = environment["SHARE_PROMPT_TIMEOUT"], let seconds = Int(text), seconds > 0 { return .seconds(seconds) }
        return .seconds(300)
    }

    /// Asks the user about an offer (only under `ask`).
    static func decide(
        _ offer: IncomingOffer, ticket: PromptTicket, prompter: Prompter, state: ReceiveReporter,
        executableBits: ExecutableBits
    ) -> Decision {
        let who = "\"\(TerminalText.safe(offer.peerName))\""
        guard prompter.canAsk else {
            state.notice(
                "Declined an offer from \(who) at \(offer.peerAddress): no terminal to ask on "
                    + "(run 'share receive --accept everyone' or '--accept trusted' to decide without asking).")
            return Decision(
                .nobodyToAsk,
                message: "it has no terminal to ask its user on; it accepts without asking only with --accept everyone or trusted")
        }
        let (lines, question) = OfferSummary.describe(offer, home: state.home, executableBits: executableBits)
        return decision(prompter.ask(lines, question: question, ticket: ticket), prompter: prompter)
    }

    /// Asks the user to compare the verification code of a pairing request.
    static func pair(_ request: PairingRequest, ticket: PromptTicket, prompter: Prompter) -> Decision {
        guard prompter.canAsk else {
            return Decision(.nobodyToAsk, message: "it has no terminal to compare the verification code on")
        }
        let (lines, question) = OfferSummary.describe(request)
        switch prompter.ask(lines, question: question, ticket: ticket) {
        case .no: return Decision(.declinedByUser, message: "its user did not confirm the verification code")
        case let other: return decision(other, prompter: prompter)
        }
    }

    /// The DECISION for how a question ended.
    static func decision(_ answer: Prompter.Answer, prompter: Prompter) -> Decision {
        switch answer {
        case .yes: .accept
        case .no: Decision(.declinedByUser, message: "")
        case .timedOut:
            Decision(.noAnswer, message: "its user did not answer within \(DurationText.format(prompter.timeout))")
        case .withdrawn(let reason): Decision(.noAnswer, message: reason)
        }
    }

    /// The kept transfers of `inbox`: kept `SHARE_PARTIAL_KEEP` seconds when set (tests), else 24 hours.
    static func partialStore(inbox: String, environment: [String: String]) -> PartialStore {
        var store = PartialStore(inbox: inbox)
        if let text = environment["SHARE_PARTIAL_KEEP"], let seconds = Double(text), seconds >= 0 {
            store.keep = .milliseconds(Int(seconds * 1000))
        }
        return store
    }
}
