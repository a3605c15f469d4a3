import ShareKit

/// The peer picker of `share send` without `--to`, without the terminal: the peers seen so far,
/// the filter typed, the row under the cursor and the rows chosen; what a key does; what the
/// screen shows. ``PeerPicker`` runs it on a terminal.
///
/// A row is a service and the key it advertises (``Row``), never a name alone: two machines may
/// swap names (`vm`, `vm #2`) while the list is shown, and a chosen row then stops being chosen
/// rather than meaning the other machine.
struct PeerPickerState {
    /// What a row is: the service's name and the key it advertises (for a LocalSend device, its
    /// name and the fingerprint it announces).
    struct Row: Hashable {
        var name: String
        var fingerprintPrefix: String?
        var isLocalSend = false

        init(_ peer: NearbyPeer) {
            name = peer.name
            fingerprintPrefix = peer.fingerprintPrefix
        }

        init(_ device: LocalSendPeer) {
            name = device.alias
            fingerprintPrefix = device.fingerprint.uppercased()
            isLocalSend = true
        }
    }

    /// What a row shows: a share receiver, or a LocalSend device (listed after them).
    enum Entry: Equatable {
        case peer(NearbyPeer)
        case device(LocalSendPeer)

        /// The name shown and filtered on.
        var name: String {
            switch self {
            case .peer(let peer): peer.name
            case .device(let device): device.alias
            }
        }

        /// Its row.
        var row: Row {
            switch self {
            case .peer(let peer): Row(peer)
            case .device(let device): Row(device)
            }
        }
    }

    /// How the picking ended.
    enum Outcome: Equatable {
        /// Still picking.
        case picking
        /// These receivers and LocalSend devices were chosen (never both empty).
        case chosen([NearbyPeer], devices: [LocalSendPeer] = [])
        /// Escape: nothing is sent.
        case cancelled
        /// Ctrl-C.
        case interrupted
    }

    /// Every peer seen (this machine's own receiver left out), by name.
    private(set) var peers: [NearbyPeer] = []
    /// Every LocalSend device seen, by name.
    private(set) var devices: [LocalSendPeer] = []
    /// What the user typed to filter the list (matched in any case against names).
    private(set) var filter = ""
    /// The row under the cursor: it stays under the cursor while the list changes and while the
    /// filter hides and shows it again.
    private(set) var focus: Row?
    /// The chosen rows.
    private(set) var chosen: Set<Row> = []
    /// A note about the last key that did nothing useful.
    private(set) var note: String?

    /// Every row: share's receivers, then LocalSend devices.
    var entries: [Entry] { peers.map(Entry.peer) + devices.map(Entry.device) }

    /// The rows that match the filter, in order.
    var visible: [Entry] {
        guard !filter.isEmpty else { return entries }
        return entries.filter { $0.name.lowercased().contains(filter.lowercased()) }
    }

    /// The row under the cursor, among the visible ones: the focused peer's, else the first.
    var cursor: Int {
        focus.flatMap { row in visible.firstIndex { $0.row == row } } ?? 0
    }

    /// Takes the peers now visible on the network.
    mutating func update(_ peers: [NearbyPeer]) {
        self.peers = peers.filter { !$0.isSelf }.sorted { $0.name.lowercased() < $1.name.lowercased() }
        keepChosenRowsThatRemain()
    }

    /// Takes the LocalSend devices now seen.
    mutating func update(devices: [LocalSendPeer]) {
        self.devices = devices.sorted { $0.alias.lowercased() < $1.alias.lowercased() }
        keepChosenRowsThatRemain()
    }

    private mutating func keepChosenRowsThatRemain() {
        let rows = Set(entries.map(\.row))
        chosen = chosen.filter { rows.contains($0) }
    }

    /// What `key` does.
    mutating func handle(_ key: TerminalKey) -> Outcome {
        note = nil
        switch key {
        case .up: move(by: -1)
        case .down: move(by: 1)
        case .space:
            guard visible.indices.contains(cursor) else { break }
            let entry = visible[cursor]
            if let problem = Self.unusable(entry) {
                note = problem
            } else if chosen.remove(entry.row) == nil {
                chosen.insert(entry.row)
            }
        case .enter:
            let picked =
                chosen.isEmpty
                ? (visible.indices.contains(cursor) ? [visible[cursor]] : [])
                : entries.filter { chosen.contains($0.row) }
            if picked.isEmpty {
                note = "no receiver to send to yet"
            } else if let problem = picked.lazy.compactMap(Self.unusable).first {
                note = problem
            } else {
                let peers = picked.compactMap { entry -> NearbyPeer? in if case .peer(let peer) = entry { peer } else { nil } }
                let devices = picked.compactMap { entry -> LocalSendPeer? in
                    if case .device(let device) = entry { device } else { nil }
                }
                return .chosen(peers, devices: devices)
            }
        case .backspace:
            if !filter.isEmpty { filter.removeLast() }
        case .clearLine:
            filter = ""
        case .character(let character):
            if filter.count < 63 { filter.append(character) }
        case .escape: return .cancelled
        case .interrupt: return .interrupted
        case .other: break
        }
        return .picking
    }

    /// The lines to show: a header, the filter, one row per visible peer (`>` marks the cursor,
    /// `[x]` a chosen peer), and a status line.
    func render(searching: Bool) -> [String] {
        var lines = ["Send to? up/down: move, space: choose several, type: filter, enter: send, esc: cancel"]
        lines.append("Filter: " + TerminalText.safe(filter))
        let rows = visible
        let width = min(32, rows.map { TerminalText.safe($0.name).count }.max() ?? 0)
        for (index, entry) in rows.enumerated() {
            let name = TerminalText.safe(entry.name)
            let padded = name.count < width ? name + String(repeating: " ", count: width - name.count) : name
            let mark = "\(index == cursor ? ">" : " ") [\(chosen.contains(entry.row) ? "x" : " ")] \(padded)  "
            guard case .peer(let peer) = entry else {
                if case .device(let device) = entry {
                    lines.append(
                        mark + "\(device.address)  \(TerminalText.safe(String(device.fingerprint.prefix(8))))  LocalSend "
                            + "\(TerminalText.safe(device.deviceType ?? "device")), not verified")
                }
                continue
            }
            var detail = peer.addresses.first.map { TerminalText.safe($0.ip) } ?? ""
            if let prefix = peer.fingerprintPrefix { detail += "  " + FingerprintText.short(String(prefix.prefix(8))) }
            if let claimed = peer.claimsKeyOf {
                detail += "  " + PeerTable.claim(claimed)
            } else if let namesake = peer.claimsNameOf {
                detail += "  not the \"\(TerminalText.safe(namesake.name))\" you verified"
            } else if peer.mixesScripts {
                detail += "  mixes scripts in its name"
            }
            if peer.incompatibility != nil { detail += "  (cannot be sent to)" }
            lines.append(mark + detail)
        }
        if rows.isEmpty {
            lines.append(
                !filter.isEmpty && !peers.isEmpty
                    ? "  No receiver matches \"\(TerminalText.safe(filter))\"."
                    : searching
                        ? "  Looking for receivers nearby..." : "  No receivers found nearby yet; still looking.")
        }
        if let note { lines.append("  " + note) }
        if !chosen.isEmpty { lines.append("  \(chosen.count) chosen") }
        return lines
    }

    /// Why `entry` cannot be chosen, if it cannot (an old protocol, no fingerprint, port 0; a
    /// LocalSend device that serves plain HTTP).
    static func unusable(_ entry: Entry) -> String? {
        switch entry {
        case .peer(let peer):
            peer.incompatibility.map { "\"\(TerminalText.safe(peer.name))\" cannot be chosen: \($0)" }
        case .device(let device):
            device.https ? nil : "\"\(TerminalText.safe(device.alias))\" cannot be chosen: it serves plain HTTP only"
        }
    }

    private mutating func move(by offset: Int) {
        let rows = visible
        guard !rows.isEmpty else { return }
        focus = rows[min(rows.count - 1, max(0, cursor + offset))].row
    }
}
