import ShareKit
import Synchronization

/// Progress of one or more transfers on one line of stderr (only when it is a terminal):
/// `Sending to "desk"  43%  440 MB / 1.0 GB ...`, or for several peers
/// `"desk" 43% 120 MB/s · "laptop" 12% 30 MB/s`.
final class ProgressBoard: Sendable {
    private let line: ProgressLine
    private let labels: [String]
    private let states: Mutex<[TransferProgress?]>
    private let console: Console

    init(console: Console, labels: [String]) {
        self.console = console
        self.labels = labels
        self.line = ProgressLine(console: console, label: labels.count == 1 ? "Sending to \(labels[0])" : "Sending")
        self.states = Mutex(Array(repeating: nil, count: labels.count))
    }

    func update(_ index: Int, _ progress: TransferProgress) {
        guard console.stderrIsTerminal else { return }
        if labels.count == 1 {
            line.update(progress)
            return
        }
        let text = states.withLock { states in
            states[index] = progress
            return zip(labels, states).map { label, state in
                guard let state else { return "\(label) waiting" }
                return "\(label) \(Int(state.fraction * 100))% \(ByteCount.format(UInt64(state.bytesPerSecond)))/s"
            }.joined(separator: " · ")
        }
        line.draw(text)
    }

    func finish() { line.finish() }

    /// Clears the line while `body` uses the terminal (a prompt), then lets updates resume.
    func pause<T>(_ body: () -> T) -> T {
        line.finish()
        return body()
    }
}
