import ShareKit
import Synchronization

/// Progress of one or more transfers on one line of stderr (only when it is a terminal):
/// `Sending to "desk"  43%  440 MB / 1.0 GB ...`, or for several peers
/// `"desk" 43% 120 MB/s · "laptop" waiting to accept`; rates are current ones (``RateMeter``).
final class ProgressBoard: Sendable {
    private let line: ProgressLine
    private let labels: [String]
    private let states: Mutex<[(state: State, meter: RateMeter)]>
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
        self.states = Mutex(Array(repeating: (State.connecting, RateMeter()), count: labels.count))
    }

    func update(_ index: Int, _ progress: TransferProgress) {
        if labels.count == 1 {
            guard console.stderrIsTerminal else { return }
            line.update(progress)
        } else {
            set(index, .sending(progress))
        }
    }

    func set(_ index: Int, _ state: State) {
        guard console.stderrIsTerminal else { return }
        let snapshot = states.withLock { states in
            states[index].state = state
            if case .sending(let progress) = state { states[index].meter.add(progress.bytesDone, at: .now) }
            return states
        }
        if labels.count == 1 {
            if case .sending = state { return }
            line.finish()
            return
        }
        line.show { [labels] now in
            zip(labels, snapshot).map { label, entry in
                switch entry.state {
                case .connecting: "\(label) connecting"
                case .waiting: "\(label) waiting to accept"
                case .sending(let progress):
                    "\(label) \(Int(progress.fraction * 100))% "
                        + (entry.meter.isStalled(at: now)
                            ? "stalled" : entry.meter.rate(at: now).map { "\(ByteCount.format(UInt64($0)))/s" } ?? "")
                case .done: "\(label) done"
                }
            }.joined(separator: " · ")
        }
    }

    func finish() { line.finish() }
}
