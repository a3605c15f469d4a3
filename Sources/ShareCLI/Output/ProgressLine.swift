import Foundation
import ShareKit
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One line of progress on stderr, redrawn in place: percentage, bytes, the current rate, ETA,
/// files, fitted to the terminal's width. Drawn by the console (only on a terminal, never while a
/// question is asked); redrawn every second while shown, so a transfer where nothing moves says
/// "stalled" rather than showing its last rate forever.
final class ProgressLine: Sendable {
    private let console: Console
    private let label: String
    private let state = Mutex(State())

    private struct State {
        var meter = RateMeter()
        /// What the line shows at a given moment; nil when it is not shown.
        var content: (@Sendable (ContinuousClock.Instant) -> String?)?
        var ticking = false
    }

    init(console: Console, label: String) {
        self.console = console
        self.label = label
    }

    /// Redraws the line for `progress`.
    func update(_ progress: TransferProgress) {
        let now = ContinuousClock.now
        let meter = state.withLock { state in
            state.meter.add(progress.bytesDone, at: now)
            return state.meter
        }
        let width = console.width
        show { [label] now in Self.format(label: label, progress, meter: meter, now: now, width: width) }
    }

    /// Shows what `content` says, now and every second until ``finish()``.
    func show(_ content: @escaping @Sendable (ContinuousClock.Instant) -> String?) {
        guard console.stderrIsTerminal else { return }
        let startTicking = state.withLock { state in
            state.content = content
            console.setStatus(content(.now))
            defer { state.ticking = true }
            return !state.ticking
        }
        if startTicking { Thread.detachNewThread { [self] in tick() } }
    }

    /// Clears the line so the next output starts clean.
    func finish() {
        state.withLock { state in
            state.content = nil
            state.meter = RateMeter()
            console.setStatus(nil)
        }
    }

    private func tick() {
        while true {
            sleep(1)
            let going = state.withLock { state in
                guard let content = state.content else {
                    state.ticking = false
                    return false
                }
                console.setStatus(content(.now))
                return true
            }
            if !going { return }
        }
    }

    /// `Sending to "desk"  43%  440 MB / 1.0 GB  312 MB/s  ETA 2s  3/10 files`, with the parts that
    /// matter least left out until it fits in `width` columns: the files, the ETA, the sizes, then
    /// the label is shortened. "stalled" replaces the rate when nothing moved for a few seconds.
    static func format(
        label: String, _ progress: TransferProgress, meter: RateMeter, now: ContinuousClock.Instant, width: Int
    ) -> String {
        let percent = "\(Int(progress.fraction * 100))%".leftPadded(4)
        var rate: String?
        var eta: String?
        if meter.isStalled(at: now) {
            rate = "stalled"
        } else if let bytesPerSecond = meter.rate(at: now) {
            rate = "\(ByteCount.format(UInt64(bytesPerSecond)))/s"
            if bytesPerSecond > 0, progress.bytesTotal >= progress.bytesDone {
                eta = "ETA \(duration(Double(progress.bytesTotal - progress.bytesDone) / bytesPerSecond))"
            }
        }
        let sizes = "\(ByteCount.format(progress.bytesDone)) / \(ByteCount.format(progress.bytesTotal))"
        let files = progress.filesTotal > 1 ? "\(progress.filesDone)/\(progress.filesTotal) files" : nil
        // Most important first; dropped from the end of `optional` until the line fits.
        var optional = [sizes, eta, files].compactMap { $0 }
        let limit = max(width - 1, 10)
        func line(_ label: String) -> String {
            ([label, percent] + [rate].compactMap { $0 } + optional).joined(separator: "  ")
        }
        while line(label).count > limit, !optional.isEmpty { optional.removeLast() }
        let room = limit - line("").count
        guard label.count > room else { return line(label) }
        return line(room > 1 ? String(label.prefix(room - 1)) + "…" : "")
    }

    /// `2s`, `1m05s`, `2h03m`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m\(String(total % 60).leftPadded(2, "0"))s" }
        return "\(total / 3600)h\(String(total % 3600 / 60).leftPadded(2, "0"))m"
    }
}

extension String {
    func leftPadded(_ width: Int, _ pad: Character = " ") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }

    func rightPadded(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
