import Foundation
import ShareKit
import Synchronization
import TypeRegistry

#if canImport(Glibc)
import Glibc
#endif

/// `share peers`: lists receivers nearby.
struct PeersCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "peers",
        abstract: "List the receivers nearby.",
        discussion: """
            Asks the system's avahi-daemon (DNS-SD) for machines running 'share receive' and lists \
            each one's name, host, addresses, port and fingerprint prefix, whether it advertises the key \
            of a peer verified here (a claim: only a connection proves a key, and sending to it requires \
            that key), and which one is this machine's own receiver. By default it waits until Avahi \
            has reported what it knows, prints, and exits; --watch prints peers as they appear and \
            disappear until interrupted.

            It also looks in wide-area DNS domains (DNS-SD over unicast DNS): those given with \
            --domain or in settings.json, and those the DNS server names for this network (browse \
            domains). A receiver seen in several places is listed once. One seen only in DNS is \
            'unconfirmed' until a connection from here proved its key.

            LocalSend devices (phones and computers running the LocalSend app) are listed apart, \
            marked as not verified: LocalSend cannot prove who a device is. They are found with \
            LocalSend's multicast discovery (224.0.0.167, UDP 53317), which announces this machine \
            as LocalSend apps do, within a second (or --wait); this needs no avahi-daemon.
            """,
        options: [
            .value("wait", "seconds", help: "Listen this long before printing (default: until Avahi has reported its cache)."),
            .flag("watch", help: "Print peers as they appear and disappear, until interrupted."),
            .flag("json", help: "Print JSON: an array of peers (with --watch: one event per line)."),
            .flag(
                "scan",
                help: "Also ask every address of this machine's networks (up to /22) for a LocalSend device, as LocalSend "
                    + "apps do when multicast fails. Never done unasked."),
            .value("domain", "domain", help: "Also look in this DNS domain (wide-area DNS-SD). Repeat for several.", repeating: true),
            .flag(
                "names",
                help: "Print only the names, one a line (this machine's own left out; LocalSend devices after share's "
                    + "receivers), after at most a second (or --wait): for scripts and shell completion."),
        ]
    )

    let wait: Int?
    let watch: Bool
    let json: Bool
    let domains: [String]
    let names: Bool
    let scan: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        wait = try parsed.integer("wait", in: 0...3600)
        watch = parsed.flag("watch")
        json = parsed.flag("json")
        domains = parsed.all("domain")
        names = parsed.flag("names")
        scan = parsed.flag("scan")
        if scan && (watch || names) { throw parsed.usageError("--scan cannot be used with --watch or --names") }
        if watch && wait != nil { throw parsed.usageError("--wait and --watch cannot be used together") }
        if names && (watch || json) { throw parsed.usageError("--names cannot be used with --watch or --json") }
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let node = try NodeLoader.load(context.paths)
        if watch { return try await watchPeers(node: node, console: context.console) }
        if names { return try await printNames(node: node, console: context.console) }
        let wait = self.wait
        let console = context.console
        // LocalSend devices answer on their own multicast group, beside Avahi, needing no daemon.
        let localSendWait = wait.map { Duration.seconds($0) } ?? EnvironmentWaits(console.environment).localSendDiscovery
        async let localSend = LocalSendDiscovery.lookOrWarn(node: node, timeout: localSendWait)
        var sightings: CombinedPeerLookup.Sightings?
        var discoveryFailure: PeerDiscoveryError?
        do {
            sightings = try await NearbyPeers.look(
                settings: node.settings, extraDomains: domains, timeout: .seconds(max(wait ?? 5, 1)),
                listeningFor: wait.map { .seconds($0) })
        } catch {
            discoveryFailure = error
        }
        var (devices, localSendProblem) = await localSend
        if scan {
            let (scanned, skipped) = await LocalSendDiscovery.scanOrWarn(node: node)
            for network in skipped {
                console.warning("not scanned for LocalSend devices: \(network) has more than \(LocalSendScan.maxAddresses) addresses")
            }
            let known = Set(devices.map { $0.fingerprint.uppercased() })
            devices = (devices + scanned.filter { !known.contains($0.fingerprint.uppercased()) })
                .sorted { $0.alias.lowercased() < $1.alias.lowercased() }
        }
        if let discoveryFailure {
            // Without Avahi, the LocalSend devices are still worth listing.
            guard !devices.isEmpty else { throw PeerScan.cliError(discoveryFailure) }
            console.warning("share receivers (.local) could not be looked up: \(discoveryFailure)")
        }
        if let localSendProblem { console.warning(TerminalText.safe(localSendProblem)) }
        for warning in sightings?.warnings ?? [] { console.warning(TerminalText.safe(warning)) }
        var peers: [NearbyPeer] = []
        if let sightings {
            do {
                peers = try NearbyPeers.peers(sightings, node: node)
            } catch {
                throw CLIError(error.description)
            }
        }
        if json {
            console.line(JSON.array(peers.map(PeerJSON.peer) + devices.map(LocalSendPeerText.json)).pretty())
        } else if peers.isEmpty && devices.isEmpty {
            console.line("No receivers found nearby.")
        } else {
            if !peers.isEmpty { console.out(PeerTable.render(peers)) }
            if !devices.isEmpty { console.out((peers.isEmpty ? "" : "\n") + LocalSendPeerText.table(devices)) }
        }
        return ExitCode.success
    }

    /// `--names`: what Avahi (and the wide-area domains) report within a second (or `--wait`),
    /// names only.
    private func printNames(node: LocalNode, console: Console) async throws(CLIError) -> Int32 {
        let timeout = Duration.seconds(wait ?? 1)
        let localSendWait = wait.map { Duration.seconds($0) } ?? EnvironmentWaits(console.environment).localSendDiscovery
        async let localSend = LocalSendDiscovery.lookOrWarn(node: node, timeout: localSendWait)
        var peers: [NearbyPeer] = []
        var failure: CLIError?
        do {
            let sightings = try await NearbyPeers.look(settings: node.settings, extraDomains: domains, timeout: timeout)
            peers = try NearbyPeers.peers(sightings, node: node)
        } catch let error as PeerDiscoveryError {
            failure = PeerScan.cliError(error)
        } catch {
            failure = CLIError("\(error)")
        }
        // LocalSend devices too (they are sent to by name as well), after share's receivers.
        let devices = await localSend.peers
        if let failure, devices.isEmpty { throw failure }
        for peer in peers where !peer.isSelf { console.line(TerminalText.safe(peer.name)) }
        for device in devices { console.line(TerminalText.safe(device.alias)) }
        return ExitCode.success
    }

    private func watchPeers(node: LocalNode, console: Console) async throws(CLIError) -> Int32 {
        for warning in NearbyPeers.domainWarnings(settings: node.settings, extraDomains: domains) {
            console.warning(TerminalText.safe(warning))
        }
        let watch: NearbyPeerWatch
        do {
            watch = try NearbyPeerWatch(node: node, extraDomains: domains)
        } catch {
            throw PeerScan.cliError(error)
        }
        if let error = watch.localFailure { console.warning("the local network: \(error)") }
        // LocalSend devices beside share's receivers (none when the wait for them is 0).
        var localSend: LocalSendWatch?
        let forget = EnvironmentWaits(console.environment).localSendForget
        if EnvironmentWaits(console.environment).localSendDiscovery > .zero {
            do {
                localSend = try LocalSendWatch(node: node, forgetAfter: forget)
            } catch {
                console.warning(TerminalText.safe("LocalSend devices cannot be watched: \(error)"))
            }
        }
        let interrupted = Mutex<Int32?>(nil)
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { [localSend] signal in
            interrupted.withLock { $0 = signal }
            watch.close()
            localSend?.close()
        }
        defer { signals.cancel() }
        defer { localSend?.close() }
        // `share peers --watch | head -3`: ends once nobody reads.
        let outputWatcher = OutputWatcher { [localSend] in
            watch.close()
            localSend?.close()
        }
        defer { outputWatcher.cancel() }
        // Events are collected as they come and printed through a filter that coalesces flapping.
        let arrived = Mutex<(events: [NearbyPeerWatch.Event], ended: Bool)>(([], false))
        let reader = Task {
            for await event in watch.events { arrived.withLock { $0.events.append(event) } }
            arrived.withLock { $0.ended = true }
        }
        defer { reader.cancel() }
        let devicesArrived = Mutex<[LocalSendWatch.Event]>([])
        let deviceReader = Task { [localSend] in
            guard let localSend else { return }
            for await event in localSend.events { devicesArrived.withLock { $0.append(event) } }
        }
        defer { deviceReader.cancel() }
        var filter = FlappingFilter()
        var shown = Set<String>()
        // What a LocalSend device's key (its fingerprint, which its alias may not be unique beside) shows as.
        var deviceNames: [String: String] = [:]
        while true {
            let (events, ended) = arrived.withLock { state in
                defer { state.events = [] }
                return (state.events, state.ended)
            }
            for event in events {
                switch event {
                case .appeared(let found), .updated(let found):
                    let peer: NearbyPeer
                    do {
                        peer = try found.get()
                    } catch {
                        throw CLIError(error.description)
                    }
                    let line =
                        json
                        ? JSON.object([("event", .string("appeared")), ("peer", PeerJSON.peer(peer))]).text()
                        : "+ " + PeerTable.summary(peer)
                    filter.record(peer.name, state: line)
                case .disappeared(let name):
                    filter.record(name, state: nil)
                case .allForNow:
                    if json { console.line(JSON.object([("event", .string("all-for-now"))]).text()) }
                case .warning(let text):
                    if json {
                        console.line(JSON.object([("event", .string("warning")), ("message", .string(text))]).text())
                    } else {
                        console.warning(TerminalText.safe(text))
                    }
                case .failure(let error):
                    throw PeerScan.cliError(error)
                }
            }
            for event in devicesArrived.withLock({ events in defer { events = [] }; return events }) {
                switch event {
                case .appeared(let device):
                    let key = LocalSendPeerText.watchKey(device)
                    deviceNames[key] = device.alias
                    let line =
                        json
                        ? JSON.object([("event", .string("appeared")), ("peer", LocalSendPeerText.json(device))]).text()
                        : "+ " + LocalSendPeerText.summary(device)
                    filter.record(key, state: line)
                case .disappeared(let device):
                    filter.record(LocalSendPeerText.watchKey(device), state: nil)
                }
            }
            for (key, output) in filter.due(at: ended ? .now + .seconds(3600) : .now) {
                let name = deviceNames[key] ?? key
                switch output {
                case .state(nil):
                    // Gone: said only for a peer that was shown.
                    guard shown.remove(key) != nil else { continue }
                    console.line(
                        json
                            ? JSON.object([("event", .string("disappeared")), ("name", .string(name))]).text()
                            : "- \(TerminalText.safe(name))")
                case .state(var line?):
                    // A peer shown before and shown again with other data is "updated" (`*`).
                    if shown.contains(key) {
                        line =
                            json
                            ? "{\"event\":\"updated\"" + line.dropFirst("{\"event\":\"appeared\"".count)
                            : "* " + line.dropFirst(2)
                    }
                    shown.insert(key)
                    console.line(line)
                case .flapping:
                    if json {
                        console.line(JSON.object([("event", .string("flapping")), ("name", .string(name))]).text())
                    } else {
                        console.line("~ \(TerminalText.safe(name)) keeps appearing and disappearing")
                    }
                }
            }
            if ended && filter.nextDue == nil { break }
            try? await Task.sleep(for: .milliseconds(100))
        }
        if let signal = interrupted.withLock({ $0 }) { return 128 + signal }
        return ExitCode.success
    }
}

/// Browsing helpers shared by `peers` and `send`.
enum PeerScan {
    /// The CLI error for a discovery failure: exit 69 when avahi-daemon or D-Bus is unavailable.
    static func cliError(_ error: PeerDiscoveryError) -> CLIError {
        CLIError(error.description, exitCode: error.isDaemonUnavailable ? ExitCode.unavailable : ExitCode.failure)
    }
}

/// The JSON shape of a peer in `share peers --json`.
enum PeerJSON {
    static func peer(_ peer: NearbyPeer) -> JSON {
        .object([
            ("protocol", .string("share")),
            ("name", .string(peer.name)),
            ("host", .string(peer.host)),
            ("port", .int(Int64(peer.port))),
            ("addresses", .array(peer.addresses.map { address in
                .object([
                    ("address", .string(address.ip)),
                    ("family", .string(address.family)),
                    ("interface", address.interfaceName.map { .string($0) } ?? .null),
                ])
            })),
            ("fingerprintPrefix", peer.fingerprintPrefix.map { .string(String($0.prefix(16))) } ?? .null),
            ("version", peer.version.map { .string($0) } ?? .null),
            // Discovery proves no key: a verified key it advertises is a claim, never "verified".
            ("verified", .bool(false)),
            ("claimsKeyOf", peer.claimsKeyOf.map { .string($0.fingerprint) } ?? .null),
            ("claimedVerifiedName", peer.claimsKeyOf.map { .string($0.name) } ?? .null),
            ("claimsNameOf", peer.claimsNameOf.map { .string($0.fingerprint) } ?? .null),
            ("mixedScripts", .bool(peer.mixesScripts)),
            ("incompatible", peer.incompatibility.map(JSON.string) ?? .null),
            ("ignoredAddresses", .array(peer.ignoredAddresses.map { .object([("address", .string($0.address)), ("reason", .string($0.reason))]) })),
            ("self", .bool(peer.isSelf)),
            ("domains", .array(peer.domains.map { .string($0) })),
            ("unconfirmed", .bool(peer.isUnconfirmed)),
        ])
    }
}

/// The human table of `share peers`.
enum PeerTable {
    static func render(_ peers: [NearbyPeer]) -> String {
        // The DOMAIN column appears once a peer was seen beyond the local network.
        let wideArea = peers.contains { $0.domains != [PeerMerger.localDomain] }
        let headers = ["NAME"] + (wideArea ? ["DOMAIN"] : []) + ["HOST", "PORT", "FINGERPRINT", "ADDRESSES", ""]
        let rows = peers.map { peer in
            [TerminalText.safe(peer.name)] + (wideArea ? [domains(peer)] : []) + [
                TerminalText.safe(peer.host), String(peer.port), fingerprint(peer), addresses(peer),
                status(peer),
            ]
        }
        var widths = headers.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in index == cells.count - 1 ? cell : cell.rightPadded(widths[index]) }
                .joined(separator: "  ").trimmingTrailingSpaces() + "\n"
        }
        return line(headers) + rows.map(line).joined()
    }

    static func summary(_ peer: NearbyPeer) -> String {
        let note = status(peer)
        let place = peer.domains == [PeerMerger.localDomain] ? "" : "  (\(domains(peer)))"
        return "\(TerminalText.safe(peer.name))\(place)  \(TerminalText.safe(peer.host)):\(peer.port)  "
            + "\(fingerprint(peer))  \(addresses(peer))" + (note.isEmpty ? "" : "  \(note)")
    }

    static func domains(_ peer: NearbyPeer) -> String {
        peer.domains.map { TerminalText.safe($0) }.joined(separator: ", ")
    }

    static func fingerprint(_ peer: NearbyPeer) -> String {
        guard let prefix = peer.fingerprintPrefix else { return "(none)" }
        return stride(from: 0, to: 16, by: 4).map { offset in
            let start = prefix.index(prefix.startIndex, offsetBy: offset)
            return String(prefix[start..<prefix.index(start, offsetBy: 4)]).uppercased()
        }.joined(separator: " ")
    }

    static func addresses(_ peer: NearbyPeer) -> String {
        peer.addresses.map { TerminalText.safe($0.ip) }.joined(separator: ", ")
    }

    static func status(_ peer: NearbyPeer) -> String {
        if peer.isSelf { return "this machine" }
        var notes: [String] = []
        if let reason = peer.incompatibility { notes.append("incompatible: \(reason)") }
        if !peer.ignoredAddresses.isEmpty {
            notes.append("ignored " + peer.ignoredAddresses.map { "\(TerminalText.safe($0.address)) (\($0.reason))" }.joined(separator: ", "))
        }
        if let claimed = peer.claimsKeyOf {
            notes.append(claim(claimed))
        } else if let namesake = peer.claimsNameOf {
            notes.append("NOT the \"\(TerminalText.safe(namesake.name))\" you verified (\(TrustCommandSupport.short(namesake.fingerprint)))")
        } else if peer.mixesScripts {
            notes.append("name mixes scripts")
        }
        if peer.isUnconfirmed { notes.append("unconfirmed") }
        return notes.joined(separator: ", ")
    }

    /// A peer that advertises the key of `verified`: what it claims, never "verified", since no
    /// connection proved the key (a send to it does, or refuses).
    static func claim(_ verified: TrustStore.Peer) -> String {
        "claims to be your verified \"\(TerminalText.safe(verified.name))\""
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
