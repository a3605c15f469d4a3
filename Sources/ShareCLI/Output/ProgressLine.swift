import ShareKit

/// One line of progress on stderr, redrawn in place: percentage, bytes, the current rate, ETA,
/// files. Drawn by the console (only on a terminal, never while a question is asked).
final class ProgressLine: Sendable {
    private let console: Console
    private let label: String

    init(console: Console, label: String) {
        self.console = console
        self.label = label
    }

    /// Redraws the line.
    func update(_ progress: TransferProgress) {
        draw(Self.format(label: label, progress))
    }

    /// Redraws the line with `text`.
    func draw(_ text: String) {
        console.setStatus(text)
    }

    /// Clears the line so the next output starts clean.
    func finish() {
        console.setStatus(nil)
    }

    /// `Sending to "desk"  43%  440 MB / 1.0 GB  312 MB/s  ETA 2s  3/10 files`.
    static func format(label: String, _ progress: TransferProgress) -> String {
        var parts = [label, "\(Int(progress.fraction * 100))%".leftPadded(4)]
        parts.append("\(ByteCount.format(progress.bytesDone)) / \(ByteCount.format(progress.bytesTotal))")
        if progress.seconds > 0.2 { parts.append("\(ByteCount.format(UInt64(progress.bytesPerSecond)))/s") }
        if let remaining = progress.secondsRemaining, progress.seconds > 0.5 { parts.append("ETA \(duration(remaining))") }
        if progress.filesTotal > 1 { parts.append("\(progress.filesDone)/\(progress.filesTotal) files") }
        return parts.joined(separator: "  ")
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
