import Foundation
import ShareKit
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `share send FILE...` without `--to`, on a terminal: lists the receivers nearby as Avahi finds
/// them (and LocalSend devices after them, as LocalSend's discovery hears them) and lets the user
/// choose one or several (arrow keys, space, typing to filter, enter), as
/// LocalSend's command line does. Drawn on stderr; keys read from stdin in raw mode, which is
/// restored before anything else is asked.
enum PeerPicker {
    /// The chosen receivers and LocalSend devices, or none when the user chose not to send
    /// (Escape): that is no failure.
    /// - Throws: exit 69 without avahi-daemon; exit 1 when the terminal's input ends; 130 on Ctrl-C.
    static func pick(
        console: Console, node: LocalNode
    ) async throws(CLIError) -> (peers: [NearbyPeer], devices: [LocalSendPeer]) {
        let browser: NearbyPeerBrowser
        do {
            browser = try NearbyPeerBrowser(node: node)
        } catch {
            throw CLIError(
                "cannot look for receivers: \(error) Name one with --to HOST:PORT instead.",
                exitCode: error.isDaemonUnavailable ? ExitCode.unavailable : ExitCode.failure)
        }
        defer { browser.close() }
        let shared = Shared()
        let watching = Task {
            for await update in browser.updates {
                if update.allForNow { shared.searching.withLock { $0 = false } }
                shared.state.withLock { $0.update(update.peers) }
                shared.changed()
            }
        }
        defer { watching.cancel() }
        // LocalSend devices too, listed after share's receivers.
        let devices: LocalSendWatch? =
            EnvironmentWaits(console.environment).localSendDiscovery > .zero
            ? try? LocalSendWatch(node: node, forgetAfter: EnvironmentWaits(console.environment).localSendForget) : nil
        defer { devices?.close() }
        let watchingDevices = Task { [devices] in
            guard let devices else { return }
            var seen: [String: LocalSendPeer] = [:]
            for await event in devices.events {
                switch event {
                case .appeared(let device): seen[device.fingerprint.uppercased()] = device
                case .disappeared(let device): seen[device.fingerprint.uppercased()] = nil
                }
                let now = Array(seen.values)
                shared.state.withLock { $0.update(devices: now) }
                shared.changed()
            }
        }
        defer { watchingDevices.cancel() }
        let outcome = await withCheckedContinuation {
            (continuation: CheckedContinuation<PeerPickerState.Outcome?, Never>) in
            let thread = Thread { continuation.resume(returning: run(shared, console: console)) }
            thread.name = "share.pick"
            thread.start()
        }
        switch outcome {
        case .chosen(let peers, let devices): return (peers, devices)
        case .cancelled: return ([], [])
        case nil: throw CLIError("no receiver was chosen; nothing was sent")
        case .interrupted, .picking: throw CLIError("interrupted; nothing was sent", exitCode: 128 + SIGINT)
        }
    }

    /// What the browsing task and the terminal thread share.
    private final class Shared: Sendable {
        let state = Mutex(PeerPickerState())
        let searching = Mutex(true)
        let version = Mutex(0)
        func changed() { version.withLock { $0 += 1 } }
    }

    /// The terminal loop: raw mode, draw, read keys, redraw on keys and on news from the network.
    /// Returns how the picking ended, or nil when the terminal's input ended first.
    private static func run(_ shared: Shared, console: Console) -> PeerPickerState.Outcome? {
        var saved = termios()
        let raw = tcgetattr(0, &saved) == 0
        if raw {
            var settings = saved
            settings.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
            settings.c_iflag &= ~tcflag_t(ICRNL | IXON)
            withUnsafeMutableBytes(of: &settings.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            tcsetattr(0, TCSANOW, &settings)
        }
        var drawnLines = 0
        func draw() {
            // Each line fits the terminal, so that moving up over what was drawn is exact.
            var size = winsize()
            let width = ioctl(2, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col >= 20 ? Int(size.ws_col) : 80
            let lines = shared.state.withLock { $0.render(searching: shared.searching.withLock { $0 }) }
                .map { $0.count < width ? $0 : String($0.prefix(width - 1)) }
            var text = drawnLines > 1 ? "\u{1B}[\(drawnLines - 1)A" : ""
            text += "\r\u{1B}[J" + lines.joined(separator: "\r\n")
            console.err(text)
            drawnLines = lines.count
        }
        console.err("\u{1B}[?25l")
        defer {
            console.err("\r\n\u{1B}[?25h")
            if raw { tcsetattr(0, TCSANOW, &saved) }
        }
        var seen = -1
        while true {
            let version = shared.version.withLock { $0 }
            if version != seen {
                seen = version
                draw()
            }
            var pfd = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(0, &buffer, buffer.count)
            if count <= 0 { return nil }
            var bytes = Array(buffer[0..<count])
            // An Escape alone, or the start of a sequence whose rest is on its way.
            if bytes == [0x1B] {
                var more = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
                if poll(&more, 1, 50) > 0 {
                    let extra = read(0, &buffer, buffer.count)
                    if extra > 0 { bytes += buffer[0..<extra] }
                }
            }
            for key in TerminalKey.decode(bytes) {
                let outcome = shared.state.withLock { $0.handle(key) }
                if outcome != .picking { return outcome }
            }
            shared.changed()
        }
    }
}
