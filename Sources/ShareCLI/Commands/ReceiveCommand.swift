import Dispatch
import Foundation
import ShareDocuments
import ShareKit
import ShareTLS
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
            with the sender's, accepted by typing its last 3 digits, and accepting remembers the sender \
            as verified. Keys typed before a question appears are discarded. Without a terminal to ask \
            on, each offer is asked about with a desktop notification (Accept or Decline; closing it \
            declines) when the session has a notification server, and what was received or why it \
            failed is notified too; with neither, offers are declined (it warns of that when it \
            starts). --accept trusted accepts silently from verified peers and refuses \
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
            .value("limit-rate", "rate", help: "Receive at most this many bytes per second (e.g. 500k, 10M, 2MiB), per transfer."),
            .flag("once", help: "Exit after one transfer (0 if it was received, 1 otherwise)."),
            .flag("json", help: "Print one JSON object per line for each event."),
            .flag(
                "localsend",
                help: "Also answer LocalSend senders (phones, other computers; HTTPS on port 53317). They cannot prove who "
                    + "they are: each offer says so, and --accept trusted refuses them."),
            .value("localsend-port", "port", help: "The port for LocalSend senders (default 53317; 0 picks a free one)."),
            .value("localsend-pin", "pin", help: "The PIN LocalSend senders must give (3 wrong ones lock an address out for a minute)."),
            .value("localsend-pin-file", "file", help: "Read the LocalSend PIN from the first line of this file (kept out of ps)."),
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
    let rateLimit: UInt64?
    /// `--localsend` (nil when not given: the setting decides).
    let localSend: Bool?
    let localSendPort: UInt16?
    let localSendPin: String?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        rateLimit = try LimitRate.parse(parsed)
        localSendPort = try parsed.integer("localsend-port", in: 0...65535).map { UInt16($0) }
        localSendPin = try PinOption.parse(parsed, "localsend-pin")
        localSend = parsed.flag("localsend") || localSendPort != nil || localSendPin != nil ? true : nil
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
        // Said now rather than at the first transfer; the default folder is created as it is.
        if let directory = options.directory, let problem = Self.folderProblem(destination, as: directory) {
            throw CLIError(problem)
        }
        let publication = try WideAreaReceive.publication(
            wideArea, settings: node.settings, workingDirectory: FileManager.default.currentDirectoryPath)
        let state = ReceiveReporter(console: console, json: json, once: once, home: context.paths.home, oneLine: service != nil)
        let prompter = Prompter(console: console, timeout: EnvironmentWaits(console.environment).prompt)
        // Without a terminal, questions are asked with desktop notifications when the session has them.
        let notifications =
            prompter.canAsk
            ? nil
            : NotificationPrompter(
                connection: service?.notifications ?? NotifierConnection(environment: console.environment),
                timeout: prompter.timeout)
        let history = TransferHistory(paths: context.paths)
        let events = ReceiverEvents(
            canAsk: { prompter.canAsk || notifications?.canAsk == true },
            decide: { [executableBits] offer, ticket in
                Self.decide(
                    offer, ticket: ticket, prompter: prompter, notifications: notifications, state: state,
                    executableBits: executableBits)
            },
            pair: { request, ticket in
                Self.pair(request, ticket: ticket, prompter: prompter, notifications: notifications, state: state)
            },
            progress: { offer, progress in state.progress(offer, progress) },
            finished: { outcome in
                state.historyProblem(history.record(outcome, configDirectory: context.paths.configDirectory))
                state.finished(outcome)
                service?.finished(outcome)
                if service == nil, let notifications {
                    TransferNotice.show(outcome, home: context.paths.home, on: notifications.connection, console: console)
                }
            })
        let receiver: Receiver
        do {
            var configuration = ReceiverConfiguration(port: settings.port, destination: destination, deviceName: name)
            configuration.configDirectory = context.paths.configDirectory
            configuration.policy = policy
            configuration.everyoneUntil = everyoneFor.map { ContinuousClock.now + $0 }
            configuration.fallbackPolicy = .ask
            configuration.promptTimeout = prompter.timeout
            let waits = EnvironmentWaits(console.environment)
            if let stall = waits.stall { configuration.idleTimeout = stall }
            configuration.partialKeep = waits.partialKeep
            configuration.executableBits = executableBits
            configuration.decodesZstd = settings.compression
            configuration.rateLimit = LimitRate.effective(rateLimit, setting: node.settings.rateLimit)
            configuration.useLocalTypes(paths: context.paths, environment: console.environment)
            let teamCAs = TeamCAStore(configDirectory: context.paths.configDirectory)
            configuration.trustAnchors = try teamCAs.anchors()
            configuration.isStillTrusted = { teamCAs.contains($0.fingerprint) }
            receiver = try Receiver(configuration: configuration, identity: node.identity, events: events)
        } catch {
            throw CLIError("\(error)")
        }
        let localSendReceiver: LocalSendReceiver?
        if localSend ?? node.settings.localsend ?? false {
            var options = LocalSendReceiveOptions()
            options.port = localSendPort ?? options.port
            options.pin = localSendPin
            options.stallLimit = EnvironmentWaits(console.environment).localSendStall
            do {
                let identity = try LocalSendIdentity.loadOrCreate(configDirectory: context.paths.configDirectory)
                localSendReceiver = try LocalSendReceiver(
                    configuration: receiver.configuration, options: options, identity: identity, events: events)
            } catch {
                throw CLIError("\(error)")
            }
        } else {
            localSendReceiver = nil
        }
        state.receiver.withLock { $0 = receiver }
        // Before anything is printed: a script that saw the first line may signal at once.
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM] + (service?.signals ?? [])) { signal in
            if service?.handle(signal, receiver: receiver) == true { return }
            state.interrupted.withLock { $0 = signal }
            receiver.stop()
        }
        // Nobody reads what it reports any more (`share receive --json | head -1`): stop as cleanly as
        // for Ctrl-C, with the exit status of what happened so far.
        let reader = OutputWatcher { receiver.stop() }

        let fingerprint = node.identity.fingerprint
        let addresses = ReceiverAddresses.reachable(port: receiver.port)
        if json {
            console.line(
                JSON.object([
                    ("event", .string("listening")), ("name", .string(name)), ("port", .int(Int64(receiver.port))),
                    ("fingerprint", .string(fingerprint.hex)), ("directory", .string(destination)),
                    ("accept", .string(policy.rawValue)), ("addresses", .array(addresses.map(JSON.string))),
                    (
                        "localsend",
                        localSendReceiver.map {
                            JSON.object([
                                ("port", .int(Int64($0.port))), ("fingerprint", .string($0.fingerprint)),
                                ("pin", .bool($0.options.pin != nil)),
                            ])
                        } ?? .null
                    ),
                ]).text())
        } else if service != nil {
            console.line(
                "Receiving as \"\(TerminalText.safe(name))\" on port \(receiver.port) (fingerprint \(fingerprint.grouped)), saving to "
                    + "\(DisplayPath.abbreviate(destination, home: context.paths.home)), accepting: \(Self.describe(policy, for: everyoneFor)).")
        } else {
            console.line("Receiving as \"\(TerminalText.safe(name))\" on port \(receiver.port) (fingerprint \(fingerprint.grouped)).")
            console.line("Senders that cannot see it nearby can use --to \(addresses.joined(separator: " or "))")
            console.line(
                "Saving to \(DisplayPath.abbreviate(destination, home: context.paths.home)); accepting: \(Self.describe(policy, for: everyoneFor)). "
                    + "Press Ctrl-C to stop.")
        }
        if let localSendReceiver, !json {
            console.line(
                "Also answering LocalSend senders (phones, other computers) on port \(localSendReceiver.port) (LocalSend fingerprint "
                    + "\(localSendReceiver.fingerprint.prefix(16))…\(localSendReceiver.options.pin != nil ? ", PIN required" : "")); "
                    + "they cannot prove who they are\(policy == .trusted ? ", so --accept trusted refuses them" : ": each offer says so").")
        }
        service?.listening(name: name, port: receiver.port, policy: Self.describe(policy, for: everyoneFor))
        if policy == .ask || everyoneFor != nil, !prompter.canAsk, notifications?.canAsk != true {
            state.warning(Self.nobodyToAskWarning(everyoneFor: everyoneFor, notifications: notifications))
        }
        let everyoneTimer = Task { [everyoneFor] in
            guard let everyoneFor else { return }
            try? await Task.sleep(for: everyoneFor)
            if !Task.isCancelled { state.policyChanged(to: .ask, after: everyoneFor) }
        }
        let advertiser: ReceiverAdvertiser?
        do {
            advertiser = try ReceiverAdvertiser(name: name, port: receiver.port, fingerprint: fingerprint)
        } catch {
            state.warning("not discoverable: \(error) \(ReceiveReporter.reachableByAddress(addresses))")
            advertiser = nil
        }
        let publishing = Task { [advertiser] in
            guard let advertiser else { return }
            for await event in advertiser.events {
                switch event {
                case .published(let name), .renamed(_, let name): receiver.published(as: name)
                default: break
                }
                state.published(event, addresses: addresses)
            }
        }
        let wideAreaPublisher = publication.map {
            WideAreaPublisher($0, name: name, port: receiver.port, fingerprint: fingerprint)
        }
        let wideAreaReports = Task { [wideAreaPublisher] in
            guard let wideAreaPublisher else { return }
            for await event in wideAreaPublisher.events { state.wideArea(event) }
        }
        let answeringLocalSend = Task { [localSendReceiver] in await localSendReceiver?.runAsync() }
        await receiver.runAsync()
        localSendReceiver?.stop()
        await answeringLocalSend.value
        receiver.waitForTransfers()
        advertiser?.close()
        await wideAreaPublisher?.stop()
        await wideAreaReports.value
        publishing.cancel()
        everyoneTimer.cancel()
        signals.cancel()
        reader.cancel()
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

    /// Why the `--dir` folder (`given` as the user typed it) cannot receive: it is not a folder, this
    /// user cannot write in it, or it is missing and so is its parent (only the last folder is
    /// created, so a typo does not make a tree of folders).
    static func folderProblem(_ folder: String, as given: String) -> String? {
        func reason() -> String { String(cString: strerror(errno)) }
        var info = stat()
        if stat(folder, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { return "'\(given)' is not a folder; choose a folder with --dir" }
            guard access(folder, W_OK | X_OK) == 0 else {
                return "cannot write in the receive folder '\(given)' (\(reason())); fix its permissions or choose another with --dir"
            }
            return nil
        }
        let parent = URL(fileURLWithPath: folder).deletingLastPathComponent().path
        // The parent as the user would type it: relative when the folder was given relative.
        var shown = (given as NSString).deletingLastPathComponent
        if shown.isEmpty { shown = "." }
        guard stat(parent, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            return "the receive folder '\(given)' does not exist, nor does the folder it would be in ('\(shown)'); "
                + "share creates only the last one: create them with 'mkdir -p', or choose another with --dir"
        }
        guard access(parent, W_OK | X_OK) == 0 else {
            return "cannot create the receive folder '\(given)': cannot write in '\(shown)' (\(reason())); "
                + "create it yourself, or choose another with --dir"
        }
        return nil
    }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }

    /// What a receiver under `ask` that cannot ask anyone (no terminal, no desktop notifications
    /// with buttons) says when it starts: that it will decline every offer.
    static func nobodyToAskWarning(everyoneFor: Duration?, notifications: NotificationPrompter?) -> String {
        let desktop = notifications?.problem.map { "no desktop notifications (\($0))" } ?? "no desktop notifications"
        let when = everyoneFor != nil ? "once the time for everyone ends, " : ""
        return "nobody can be asked here (no terminal, \(desktop)): \(when)every offer is declined. "
            + "Use --accept trusted or --accept everyone to decide without asking."
    }

    /// Asks the user about an offer (only under `ask`): on the terminal, else with a desktop
    /// notification, else it is declined.
    static func decide(
        _ offer: IncomingOffer, ticket: PromptTicket, prompter: Prompter, notifications: NotificationPrompter?,
        state: ReceiveReporter, executableBits: ExecutableBits
    ) -> OfferAnswer {
        let who = "\"\(TerminalText.safe(offer.peerName))\" at \(offer.peerAddress)"
        let (lines, question) = OfferSummary.describe(offer, home: state.home, executableBits: executableBits)
        if !prompter.canAsk, let notifications, notifications.canAsk {
            return notifications.decide(lines, question: question, ticket: ticket, about: "the offer from \(who)", state: state)
        }
        guard prompter.canAsk else {
            let desktop = notifications?.problem.map { ", and no desktop notifications (\($0))" } ?? ""
            state.notice(
                "Declined an offer from \(who): no terminal to ask on\(desktop) "
                    + "(run 'share receive --accept everyone' or '--accept trusted' to decide without asking).")
            return OfferAnswer(
                .nobodyToAsk,
                message: "it has no terminal to ask its user on and no desktop notifications; it accepts without asking only "
                    + "with --accept everyone or trusted")
        }
        if let confirmation = OfferSummary.confirmation(offer) {
            return decision(prompter.confirm(lines, confirmation, ticket: ticket), prompter: prompter)
        }
        return decision(prompter.ask(lines, question: question, ticket: ticket), prompter: prompter)
    }

    /// Asks the user to compare the verification code of a pairing request: on the terminal, else
    /// with a desktop notification.
    static func pair(
        _ request: PairingRequest, ticket: PromptTicket, prompter: Prompter, notifications: NotificationPrompter?,
        state: ReceiveReporter
    ) -> OfferAnswer {
        let (lines, question) = OfferSummary.describe(request)
        let decision: OfferAnswer
        if !prompter.canAsk, let notifications, notifications.canAsk {
            decision = notifications.decide(
                lines, question: question, accept: "Same code", decline: "Different code", category: nil, ticket: ticket,
                about: "the pairing request from \"\(TerminalText.safe(request.peerName))\" at \(request.peerAddress)",
                state: state)
        } else if prompter.canAsk {
            decision = Self.decision(
                prompter.confirm(lines, OfferSummary.confirmation(request), ticket: ticket), prompter: prompter)
        } else {
            return OfferAnswer(
                .nobodyToAsk, message: "it has no terminal to compare the verification code on and no desktop notifications")
        }
        guard decision.code == .declinedByUser else { return decision }
        return OfferAnswer(.declinedByUser, message: "its user did not confirm the verification code")
    }

    /// The DECISION for how a question ended.
    static func decision(_ answer: Prompter.Answer, prompter: Prompter) -> OfferAnswer {
        decision(answer, timeout: prompter.timeout)
    }

    /// The DECISION for how a question that waited at most `timeout` ended.
    static func decision(_ answer: Prompter.Answer, timeout: Duration) -> OfferAnswer {
        switch answer {
        case .yes: .accept
        case .no: OfferAnswer(.declinedByUser, message: "")
        case .timedOut:
            OfferAnswer(.noAnswer, message: "its user did not answer within \(DurationText.format(timeout))")
        case .withdrawn(let reason): OfferAnswer(.noAnswer, message: reason)
        }
    }
}
