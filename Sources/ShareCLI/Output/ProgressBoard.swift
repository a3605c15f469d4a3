import ShareKit
import Synchronization

/// Progress of one or more transfers on one line of stderr (only when it is a terminal):
/// `Sending to "desk"  43%  440 MB / 1.0 GB ...`, or for several peers
/// `"desk" 43% 120 MB/s · "laptop" waiting to accept`.
final class ProgressBoard: Sendable {
    private let line: ProgressLine
    private let labels: [String]
    private let states: Mutex<[State]>
    private let console: Console

    /// Where one transfer stands.
    enum State: Sendable {
        case connecting
        case waiting
        case sending(TransferProgress)
        case done
    }

    init(console: Console, labels: [String]) {
        self.console = console
        self.labels = labels
        self.line = ProgressLine(console: console, label: labels.count == 1 ? "Sending to \(labels[0])" : "Sending")
        self.states = Mutex(Array(repeating: .connecting, count: labels.count))
    }

    func update(_ index: Int, _ progress: TransferProgress) { set(index, .sending(progress)) }

    func set(_ index: Int, _ state: State) {
        guard console.stderrIsTerminal else { return }
        let text: String? = states.withLock { states in
            states[index] = state
            if labels.count == 1 {
                switch state {
                case .sending(let progress): return ProgressLine.format(label: "Sending to \(labels[0])", progress)
                case .connecting, .waiting, .done: return nil
                }
            }
            return zip(labels, states).map { label, state in
                switch state {
                case .connecting: "\(label) connecting"
                case .waiting: "\(label) waiting to accept"
                case .sending(let progress): "\(label) \(Int(progress.fraction * 100))% \(ByteCount.format(UInt64(progress.bytesPerSecond)))/s"
                case .done: "\(label) done"
                }
            }.joined(separator: " · ")
        }
        if let text { line.draw(text) } else { line.finish() }
    }

    func finish() { line.finish() }
}
