import Foundation
import ShareDocuments
import ShareKit
import ShareTLS
import Synchronization
import TypeRegistry

#if canImport(Glibc)
import Glibc
#endif

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
            a peer's fingerprint, an address (HOST:PORT, or an IP address alone for the default port \
            47321), or a host of the local network as 'share peers' shows it (desk.local, or \
            desk.local:PORT when it runs several receivers). A peer found by name must present the key whose \
            fingerprint it advertises, and the name of a peer you verified means that peer's key, \
            wherever it is: nothing is sent to another machine that took the name. Several --to send \
            the same documents to several peers at once. Without --to, on a terminal, share lists the \
            receivers nearby as they appear and you choose: up and down move, space chooses several, \
            typing filters by name, enter sends, escape cancels.

            '-' sends standard input as one file called --name: it is saved to a private temporary \
            file first (in $TMPDIR, else /tmp; never filling the disk), so its size and SHA-256 are \
            known before it is offered, and deleted afterwards.

            --text sends a short text (at most 16 KiB), alone or with files: the receiver sees it in \
            its question and keeps it as a .txt document (named --name when no '-' is sent, else \
            Text.txt). A web address in it is shown as a link there, never opened by share.

            Nothing but a greeting is sent before the receiver's key passed these checks. When the \
            receiver's user decides on a terminal and one of you has not verified the other, both \
            sides show the same verification code: confirm it here, and each side remembers the other \
            as verified. A send without a terminal stays unverified, and says so once per receiver.

            Named pipes, sockets and devices inside a folder are skipped with a warning. --exclude \
            leaves out what matches a pattern, written as in .gitignore and matched inside each folder \
            sent: '*.o' and 'node_modules/' at any depth, '/build' at the folder's top, 'docs/**/*.tmp'; \
            '!keep.o' sends again what an earlier pattern left out. With -L, what links inside the \
            folders point to is sent in their place.

            A send whose connection fails on the way (the network drops, the receiver sleeps, stalls, \
            restarts or runs out of disk space) tries again by itself for --retry-for (5 minutes by \
            default; --no-retry to fail at once), and continues from what the receiver already holds: \
            each file's part there is checked against the file here (SHA-256) and only the rest is \
            sent. Running the same send again later also continues, while the receiver keeps the part \
            (24 hours by default).

            Files are compressed with zstd on the way where that pays (never images, audio, video \
            or archives, which are compressed already; otherwise only what a sample shows to \
            compress), at a level that follows how fast the link takes the data; the receiver checks \
            the SHA-256 of the original bytes. --no-compress, or 'share config set compression off', \
            sends every byte as it is.

            A LocalSend device (a phone or computer running the LocalSend app, as 'share peers' \
            lists it) is sent to by its name when no share receiver has that name, or as \
            localsend://HOST[:PORT]. Its certificate must match the fingerprint it announced (by \
            address: the one seen there the first time), or nothing is sent; LocalSend cannot prove \
            who a device is, so it is never verified. --pin gives the PIN it may ask for.

            --link sends to any browser instead, as LocalSend's reverse transfer: share serves the \
            files over plain HTTP (browsers refuse self-signed certificates) at an address with a \
            secret session, printed for each network address of this machine and, on a terminal, as \
            a QR code to scan with a phone. The page lists the files with download links; --pin \
            asks for a PIN first. share stops once every file was downloaded whole once (exit 0), \
            after --link-timeout (10 minutes by default; exit 1 unless everything was downloaded), \
            or at Ctrl-C. Anyone on the network who sees the address (and the PIN) can download.
            """,
        arguments: [
            ArgumentSpec(
                name: "path", help: "Files and folders to send; '-' for standard input (with --name).", repeating: true,
                optional: true)
        ],
        options: [
            .value(
                "to", "peer",
                help: "A receiver: a name, a fingerprint prefix, HOST:PORT (e.g. 192.168.1.20:47321), or a LocalSend "
                    + "device (its name, or localsend://HOST). Repeat to send to several.",
                repeating: true),
            .value("text", "text", help: "A short text to send; the receiver keeps it as a .txt document."),
            .value("name", "name", help: "The name standard input ('-'), else the --text, gets on the receiver."),
            .value(
                "retry-for", "duration",
                help: "Keep reconnecting this long after the connection fails (e.g. 90s, 10m; default 5m)."),
            .flag("no-retry", help: "Fail at once when the connection fails."),
            .value(
                "exclude", "pattern",
                help: "Leave out what matches this gitignore-style pattern inside the folders (e.g. '*.o', 'node_modules/', '/build'). Repeat for several.",
                repeating: true),
            .flag("follow-links", short: "L", help: "Send what symbolic links inside the folders point to, instead of the links."),
            .value("limit-rate", "rate", help: "Send at most this many bytes per second (e.g. 500k, 10M, 2MiB), to each peer."),
            .flag("no-compress", help: "Send every byte as it is: no zstd, whatever the setting 'compression' says."),
            .value("pin", "pin", help: "The PIN a LocalSend device asks for before it takes files."),
            .value("pin-file", "file", help: "Read the LocalSend PIN from the first line of this file (kept out of ps)."),
            .flag(
                "link",
                help: "Serve the files to any browser on the network instead (plain HTTP, an address with a secret "
                    + "session and a QR code) until each was downloaded once."),
            .value(
                "link-port", "port",
                help: "The port of --link (default 53317, LocalSend's; another when it is taken; 0: any free port)."),
            .value("link-timeout", "duration", help: "Stop serving --link after this long (e.g. 90s, 30m; default 10m)."),
            .flag("json", help: "Print the result as JSON, one object per peer and line."),
        ],
        usageOverride:
            "[<path> ...] [--text <text>] [--to <peer> ...] [--name <name>] [--retry-for <duration> | --no-retry] "
            + "[--exclude <pattern> ...] [-L] [--limit-rate <rate>] [--no-compress] [--pin <pin> | --pin-file <file>] "
            + "[--link [--link-port <port>] [--link-timeout <duration>]] [--json]"
    )

    let paths: [String]
    let targets: [String]
    let json: Bool
    let noCompress: Bool
    let input: StandardInput?
    let text: TextNote?
    /// How a failed connection is retried (nil: `--no-retry`).
    let retry: RetryPolicy?
    let scanOptions: ScanOptions
    let rateLimit: UInt64?
    /// The PIN for LocalSend devices that ask for one (`--pin`, or the first line of `--pin-file`).
    let pin: String?
    /// `--link`: serve the files to browsers instead of sending them.
    let link: LinkServing?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        rateLimit = try LimitRate.parse(parsed)
        pin = try PinOption.parse(parsed, "pin")
        paths = parsed.positionals
        json = parsed.flag("json")
        noCompress = parsed.flag("no-compress")
        input = try StandardInput(parsed)
        text = try TextNote(parsed)
        if paths.isEmpty && text == nil { throw parsed.usageError("Missing expected argument '<path> ...' (or --text)") }
        let retryFor = try parsed.value("retry-for").map { text throws(UsageError) in
            guard let duration = DurationText.parse(text) else {
                throw parsed.usageError("The value '\(text)' is invalid for '--retry-for'; expected e.g. 90s, 10m or 2h")
            }
            return duration
        }
        if parsed.flag("no-retry") {
            if retryFor != nil { throw parsed.usageError("--retry-for and --no-retry cannot be used together") }
            retry = nil
        } else {
            retry = RetryPolicy(retryFor: retryFor ?? RetryPolicy.defaultRetryFor)
        }
        var excludes: [ExcludePattern] = []
        for text in parsed.all("exclude") {
            guard let pattern = ExcludePattern(text) else {
                throw parsed.usageError("The pattern '\(text)' for '--exclude' matches nothing; give a name or a path, e.g. '*.log'")
            }
            excludes.append(pattern)
        }
        scanOptions = ScanOptions(excludes: ExcludeRules(excludes), followLinks: parsed.flag("follow-links"))
        let values = parsed.all("to")
        link = try Self.linkServing(parsed, pin: pin)
        if values.isEmpty && input != nil && link == nil {
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

    /// `--link` and its options, checked against the options it cannot go with.
    private static func linkServing(_ parsed: ParsedArguments, pin: String?) throws(UsageError) -> LinkServing? {
        guard parsed.flag("link") else {
            for option in ["link-port", "link-timeout"] where parsed.value(option) != nil {
                throw parsed.usageError("--\(option) is an option of --link")
            }
            return nil
        }
        if !parsed.all("to").isEmpty {
            throw parsed.usageError("--link serves the files to browsers itself; it cannot be used with --to")
        }
        for option in ["retry-for", "limit-rate"] where parsed.value(option) != nil {
            throw parsed.usageError("--\(option) cannot be used with --link")
        }
        if parsed.flag("no-retry") { throw parsed.usageError("--no-retry cannot be used with --link") }
        var port = LocalSendLink.defaultPort
        if let text = parsed.value("link-port") {
            guard let value = UInt16(text) else {
                throw parsed.usageError(
                    "The value '\(text)' is invalid for '--link-port'; expected a port from 0 to 65535 (0: any free port)")
            }
            port = value
        }
        var timeout = LocalSendLink.defaultTimeout
        if let text = parsed.value("link-timeout") {
            guard let value = DurationText.parse(text) else {
                throw parsed.usageError("The value '\(text)' is invalid for '--link-timeout'; expected e.g. 90s, 10m or 2h")
            }
            timeout = value
        }
        return LinkServing(port: port, timeout: timeout, pin: pin, json: parsed.flag("json"))
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let console = context.console
        if targets.isEmpty && link == nil { try PeerTargets.requireTerminal(console) }
        let node = try NodeLoader.load(context.paths)
        let spool = try input?.spool(environment: console.environment)
        defer { spool?.remove() }
        let prepared: PreparedSend
        let registry = LocalTypes.senderRegistry(context)
        do {
            let files =
                paths.isEmpty
                ? nil : try PreparedSend.scan(paths.map { $0 == "-" ? spool?.path ?? $0 : $0 }, options: scanOptions, registry: registry)
            prepared = try PreparedSend.offering(note: text?.entry(registry: registry, now: Int64(time(nil))), files: files)
        } catch {
            // Nothing can be sent to anyone: every target gets its answer.
            guard json else { throw CLIError(error.description) }
            for target in targets {
                console.line(ReportJSON.sendFailed(to: target, peer: .null, outcome: "failed", error: error.description).text())
            }
            console.error(error.description)
            return ExitCode.failure
        }
        warnAboutSkipped(prepared, console: console)
        if let link { return try await link.run(prepared, node: node, console: console) }
        let anchors: TrustAnchors
        do {
            anchors = try TeamCAStore(configDirectory: context.paths.configDirectory).anchors()
        } catch {
            throw CLIError(TerminalText.safe(error.description))
        }
        // LocalSend devices: named localsend://HOST[:PORT], or by a name no share receiver answers to.
        let (shareTargets, named) = LocalSendDelivery.split(self.targets)
        var localSendTargets = named
        var (targets, resolved, pickedDevices) =
            shareTargets.isEmpty && !self.targets.isEmpty
            ? ([], [], []) : try await PeerTargets.resolveOrPick(shareTargets, console: console, node: node)
        localSendTargets += pickedDevices.map { LocalSendDelivery.Target(text: $0.alias, device: LocalSendTarget($0)) }
        let unknown = zip(targets, resolved).compactMap { target, result -> String? in
            if case .failure(let error) = result, error.outcome == "notFound" { return target }
            return nil
        }
        let claimed = await LocalSendDelivery.claim(
            unknown, node: node, wait: EnvironmentWaits(console.environment).localSendLookup)
        if !claimed.isEmpty {
            let kept = targets.indices.filter { claimed[targets[$0]] == nil }
            localSendTargets += targets.compactMap { name in claimed[name].map { LocalSendDelivery.Target(text: name, device: $0) } }
            (targets, resolved) = (kept.map { targets[$0] }, kept.map { resolved[$0] })
        }
        if targets.isEmpty && localSendTargets.isEmpty {
            // Escape in the picker: choosing not to send is no failure.
            console.err("Nothing sent.\n")
            return ExitCode.success
        }
        let everyTarget = targets.count + localSendTargets.count
        if everyTarget == 1, targets.count == 1, case .failure(let error) = resolved[0], !json { throw error }
        let destinations = resolved.compactMap { try? $0.get() }
        let board = ProgressBoard(
            console: console, labels: destinations.map(\.label) + localSendTargets.map(LocalSendDelivery.label))
        let prompter = Prompter(console: console, timeout: EnvironmentWaits(console.environment).prompt)
        let attended = console.stdinIsTerminal && console.stderrIsTerminal
        let interruption = SendInterruption()
        let cancellation = interruption.cancellation
        defer { interruption.stop() }
        // LocalSend devices are sent to at the same time as share's receivers.
        let delivery = LocalSendDelivery(
            node: node, pin: pin, cancellation: cancellation,
            rateLimit: LimitRate.effective(rateLimit, setting: node.settings.rateLimit),
            decisionWait: EnvironmentWaits(console.environment).prompt)
        let toLocalSend = localSendTargets
        let firstLocalSendRow = destinations.count
        let localSendRun = Task { await delivery.send(prepared, to: toLocalSend, board: board, firstRow: firstLocalSendRow) }
        // Several receivers: the files are read and hashed once for all of them.
        let source = destinations.count > 1 ? SharedSource(prepared) : nil
        // Whom each send reached, for the report and the history of a send that does not complete.
        let greeted = Mutex([GreetedReceiver?](repeating: nil, count: destinations.count))
        let results = await withTaskGroup(of: (Int, Result<SendReport, SendError>).self) { group in
            for (index, destination) in destinations.enumerated() {
                var options = SendOptions(deviceName: node.deviceName(), expectedKey: destination.expectedKey)
                options.configDirectory = node.paths.configDirectory
                options.trustAnchors = anchors
                options.cancellation = cancellation
                options.rateLimit = LimitRate.effective(rateLimit, setting: node.settings.rateLimit)
                options.retry = retry
                options.sharedSource = source
                options.compression = noCompress || node.settings.compression == false ? .off : CompressionSettings()
                // Tests and benchmarks of compression run sender and receiver on one machine (README: Compression).
                options.compression.thisMachineAsDistant = console.environment["SHARE_COMPRESS_THIS_MACHINE"] == "1"
                options.compressedTypes = CompressedTypes(registry: registry)
                if let stall = EnvironmentWaits(console.environment).stall { options.idleTimeout = stall }
                let single = destinations.count == 1
                let who = single ? "" : "\(TerminalText.safe(destination.label)): "
                options.onReconnect = { reconnection in
                    guard !json else { return }
                    board.set(index, .connecting)
                    console.err(
                        "\(who)connection lost (\(reconnection.reason)); reconnecting in "
                            + "\(DurationText.format(reconnection.delay)) (attempt \(reconnection.attempt))…\n")
                }
                options.onGreeted = { receiver in greeted.withLock { $0[index] = receiver } }
                options.onResume = { resumption in
                    guard !json else { return }
                    console.err(
                        "\(who)resuming: \(ByteCount.format(resumption.heldBytes)) of "
                            + "\(ByteCount.format(resumption.totalBytes)) already there\n")
                }
                if attended {
                    options.interaction = SendInteraction(
                        compareCode: { comparison, ticket in
                            let (lines, _) = OfferSummary.describe(comparison)
                            return prompter.confirm(lines, OfferSummary.confirmation(comparison), ticket: ticket) == .yes
                        },
                        waiting: { waiting in
                            guard waiting.receiverAsksItsUser else { return }
                            if single {
                                console.err("Waiting for \"\(TerminalText.safe(waiting.peerName))\" to accept…\n")
                            } else {
                                board.set(index, .waiting)
                            }
                        })
                }
                group.addTask {
                    do throws(SendError) {
                        let report = try await Sender.sendAsync(
                            prepared, to: destination, identity: node.identity, node: node, options: options,
                            progress: { board.update(index, $0) })
                        board.set(index, .done)
                        return (index, .success(report))
                    } catch {
                        board.set(index, .done)
                        return (index, .failure(error))
                    }
                }
            }
            var results = [Result<SendReport, SendError>?](repeating: nil, count: destinations.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
        let localSendResults = await localSendRun.value
        board.finish()
        WideAreaTarget.record(destinations, results, node: node)
        let history = TransferHistory(paths: context.paths)
        HistoryCommand.warn(
            history.record(
                results, to: destinations.map(\.target), greeted: greeted.withLock { $0 }, manifest: prepared.manifest,
                configDirectory: node.paths.configDirectory),
            console)

        var failures: [String] = []
        var sent = results.makeIterator()
        for (target, resolution) in zip(targets, resolved) {
            let destination: SendDestination
            switch resolution {
            case .failure(let error):
                failures.append(error.outcomeCode)
                report(
                    failureOf: target, peer: .null, outcome: error.outcomeCode, message: error.message, console: console,
                    single: everyTarget == 1)
                continue
            case .success(let resolved):
                destination = resolved
            }
            guard let result = sent.next() else { break }
            switch result {
            case .success(let report):
                if json {
                    ReportJSON.printLine(
                        ReportJSON.sent(report, to: destination, prepared: prepared), verifiedFiles: report.files,
                        to: console)
                } else {
                    printReport(report, console: console)
                }
                noteIfUnverified(report, destination: destination, node: node, console: console)
            case .failure(let error):
                failures.append(error.outcome)
                if everyTarget == 1 && !json {
                    if let signal = interruption.signal {
                        console.error(error.description)
                        return 128 + signal
                    }
                    throw CLIError(error.description)
                }
                let reached = greeted.withLock { $0[destinations.firstIndex { $0.target == destination.target } ?? 0] }
                var peer = ReportJSON.peer(destination, greeted: reached)
                if case .identityMismatch(let endpoint, _, let actual) = error {
                    // Another key answered: the peer is what answered, never the verified one expected.
                    peer = ReportJSON.peer(name: nil, fingerprint: actual, address: endpoint)
                }
                report(
                    failureOf: destination.target, peer: peer, outcome: error.outcome, message: error.description,
                    console: console, single: everyTarget == 1)
            }
        }
        if !localSendTargets.isEmpty {
            HistoryCommand.warn(
                TransferHistory(paths: context.paths).record(
                    localSend: localSendResults, to: localSendTargets.map(\.device), manifest: prepared.manifest),
                console)
        }
        failures += LocalSendDelivery.report(
            localSendResults, for: localSendTargets, json: json, single: everyTarget == 1, console: console)
        if let signal = interruption.signal { return 128 + signal }
        if failures.isEmpty { return ExitCode.success }
        // 69 only when nothing could be done for want of avahi-daemon; any other failure is 1.
        return failures.count == everyTarget && failures.allSatisfy { $0 == "unavailable" } ? ExitCode.unavailable : ExitCode.failure
    }

    /// Says that sending to `target` failed: as JSON (and on stderr when it is the only target), or
    /// as `Error: ...`.
    private func report(failureOf target: String, peer: JSON, outcome: String, message: String, console: Console, single: Bool) {
        if json {
            console.line(ReportJSON.sendFailed(to: target, peer: peer, outcome: outcome, error: message).text())
            if single { console.error(message) }
        } else if single {
            console.error(message)
        } else {
            console.error("sending to \(TerminalText.safe(target)) failed: \(message)")
        }
    }

    /// Warns about each special file left out (at most 10 by name).
    private func warnAboutSkipped(_ prepared: PreparedSend, console: Console) {
        let shown = 10
        for skipped in prepared.skipped.prefix(shown) {
            console.warning("skipped '\(TerminalText.safe(skipped.path))': \(skipped.reason)")
        }
        if prepared.skipped.count > shown {
            console.warning("skipped \(prepared.skipped.count - shown) more special files")
        }
    }

    /// Says once per receiver (never for this machine's own) that a send was not verified, with a
    /// command that works for how the receiver was reached.
    private func noteIfUnverified(_ report: SendReport, destination: SendDestination, node: LocalNode, console: Console) {
        guard case .unverified(let reason) = report.peerVerification, !json,
            report.peerFingerprint != node.identity.fingerprint,
            UnverifiedNotes.firstTime(report.peerFingerprint, stateDirectory: node.paths.stateDirectory)
        else { return }
        let who = "\"\(TerminalText.safe(report.peerName))\""
        let why =
            reason == .senderUnattended
            ? "no terminal here to compare a code on" : "it accepts without asking a person, so it showed no code"
        // The command comes last, unquoted, so that it pastes into a shell as it is.
        console.err(
            "Note: \(who) is not verified (\(why)). This note is shown once per receiver. To verify it, run this on a "
                + "terminal while 'share receive' runs there on a terminal: "
                + "share trust verify \(ShellWord.quoted(TerminalText.safe(destination.target)))\n")
    }

    private func printReport(_ report: SendReport, console: Console) {
        let count = report.items.count == 1 ? "1 item" : "\(report.items.count) items"
        let certified = report.peerTrustedBy.map { " (certified by the team CA \"\(TerminalText.safe($0.displayName))\")" } ?? ""
        let content = ContentCount(texts: report.items.filter(\.isNote).count, files: report.files.count)
        let files = content.text
        let verified = content.verified
        let moved = report.bytes - min(report.resumedBytes, report.bytes)
        let rate = report.seconds > 0 ? ", \(ByteCount.format(UInt64(Double(moved) / report.seconds)))/s" : ""
        var resumed = report.resumedBytes > 0 ? " (\(ByteCount.format(report.resumedBytes)) were already there)" : ""
        if report.attempts > 1 { resumed += " after \(report.attempts) connections" }
        let compressed = report.compression.flatMap { statistics in
            statistics.compressedChunks == 0 ? nil : ", \(ByteCount.format(statistics.payloadBytes)) on the wire (zstd)"
        } ?? ""
        let who = OfferSummary.who(
            name: report.peerName, pinnedName: ReportJSON.verifiedAs(report), claimsNameOf: nil, trustedBy: nil)
        let shownWho = report.peerVerification == .confirmedNow ? "\"\(TerminalText.safe(report.peerName))\" (verified now)" : who
        console.line(
            "Sent \(count) to \(shownWho) at \(report.endpoint)\(certified): "
                + "\(ByteCount.format(report.bytes)), \(files) in \(String(format: "%.1f", report.seconds)) s\(rate)\(compressed)\(resumed)"
                + verified)
        for item in report.items {
            let name = TerminalText.safe(item.name) + (item.isBundle ? "/" : "")
            switch item.outcome {
            case .placed: console.line("  \(name) -> \(TerminalText.safe(item.text))")
            case .imported: console.line("  \(name): imported by \"\(TerminalText.safe(item.text))\"")
            case .keptInInbox: console.line("  \(name): kept in the receiver's inbox: \(TerminalText.safe(item.text))")
            }
        }
    }
}
