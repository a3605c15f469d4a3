import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Whether a direction of a proxied connection forwards.
enum StallState: Sendable {
    case flowing
    case until(ContinuousClock.Instant)
    case indefinitely

    /// A stall for `duration` from now, or until resumed.
    static func lasting(_ duration: Duration?) -> StallState {
        duration.map { .until(.now + $0) } ?? .indefinitely
    }
}

/// One client connection of a ``FaultProxy`` and its connection to the target: two threads, one per
/// direction, each reading what one side sends and writing it to the other, applying the faults.
///
/// Both descriptors are non-blocking, and every wait is a poll of at most 10 ms, so a command (cut,
/// stall, rate) takes effect within that time. The last of the two threads closes both descriptors.
final class ProxiedConnection: Sendable {
    /// Its place in the order connections were accepted.
    let index: Int
    private let client: Int32
    private let server: Int32
    private let state: Mutex<State>

    private struct Flow {
        var faults: FaultProxy.Faults
        var forwarded = 0
        var stall: StallState
        var stallTriggered = false
        var rate: Int?
        var tokens = 0.0
        var refilled = ContinuousClock.now
        var finished = false
    }

    private struct State {
        var flows: [Flow]
        var stopping = false
        var ending: FaultProxy.Ending?
        var threadsRunning = 0
    }

    private enum Step {
        case stop
        case cut(FaultProxy.CutMode)
        case wait(Duration)
        case read(Int)
    }

    private enum Delivery {
        case sent, stopped, failed
    }

    /// A connection forwarding between `client` and `server` (both non-blocking); call ``start()``.
    init(index: Int, client: Int32, server: Int32, faults: [FaultProxy.Faults], rates: [Int?], stalls: [StallState]) {
        self.index = index
        self.client = client
        self.server = server
        let flows = (0..<2).map {
            Flow(faults: faults[$0], stall: stalls[$0], rate: faults[$0].bytesPerSecond ?? rates[$0])
        }
        state = Mutex(State(flows: flows, threadsRunning: 2))
    }

    /// A connection that never reached the target (the client was already reset).
    init(index: Int, unreachable reason: String) {
        self.index = index
        client = -1
        server = -1
        state = Mutex(State(flows: [], stopping: true, ending: .targetUnreachable(reason)))
    }

    /// Starts the two forwarding threads.
    func start() {
        for direction in FaultProxy.Direction.allCases {
            Thread.detachNewThread { [self] in
                pump(direction)
                threadEnded()
            }
        }
    }

    /// What happened so far.
    var report: FaultProxy.ConnectionReport {
        state.withLock { state in
            let ended = state.threadsRunning == 0 ? state.ending ?? .closed : nil
            return FaultProxy.ConnectionReport(
                index: index, upstream: state.flows.first?.forwarded ?? 0, downstream: state.flows.last?.forwarded ?? 0,
                ending: state.flows.isEmpty ? state.ending : ended)
        }
    }

    /// Whether both threads are done and the descriptors closed.
    var hasEnded: Bool { state.withLock { $0.threadsRunning == 0 } }

    /// Cuts the connection: both sides get a FIN (and nothing after it, not even a reset at the
    /// close), or a reset once what was forwarded was acknowledged.
    func cut(_ mode: FaultProxy.CutMode) {
        end(.cut(mode), resetting: mode == .reset, draining: true)
    }

    /// Stops forwarding in `directions` (for `duration`, or until resumed).
    func stall(_ directions: [FaultProxy.Direction], _ stall: StallState) {
        state.withLock { state in
            for direction in directions where !state.flows.isEmpty { state.flows[direction.index].stall = stall }
        }
    }

    /// Limits `directions` to `bytesPerSecond` (nil: no limit).
    func setRate(_ directions: [FaultProxy.Direction], _ bytesPerSecond: Int?) {
        state.withLock { state in
            for direction in directions where !state.flows.isEmpty {
                state.flows[direction.index].rate = bytesPerSecond
                state.flows[direction.index].tokens = 0
                state.flows[direction.index].refilled = .now
            }
        }
    }

    private func pump(_ direction: FaultProxy.Direction) {
        let (source, sink) = direction == .upstream ? (client, server) : (server, client)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            switch nextStep(direction.index, bufferSize: buffer.count) {
            case .stop:
                return
            case .cut(let mode):
                cut(mode)
                return
            case .wait(let duration):
                if duration > .zero { usleep(UInt32(clamping: max(duration.milliseconds, 1) * 1000)) }
            case .read(let limit):
                guard PlainSocket.wait(source, for: Int32(POLLIN), milliseconds: 10) != 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, limit) }
                if count < 0 {
                    if errno == EAGAIN || errno == EINTR { continue }
                    // Reset (or timed out): pass the reset on.
                    end(.reset, resetting: true, draining: false)
                    return
                }
                if count == 0 {
                    passEnd(of: direction, to: sink)
                    return
                }
                let offset = state.withLock { $0.flows[direction.index] }
                if let flip = offset.faults.flipAt, flip >= offset.forwarded, flip < offset.forwarded + count {
                    buffer[flip - offset.forwarded] ^= 0xFF
                }
                switch deliver(buffer, count: count, to: sink) {
                case .sent:
                    state.withLock { state in
                        state.flows[direction.index].forwarded += count
                        state.flows[direction.index].tokens -= Double(count)
                    }
                case .stopped:
                    return
                case .failed:
                    end(.reset, resetting: true, draining: false)
                    return
                }
            }
        }
    }

    /// What the pump of direction `index` may do now, given the faults and commands.
    private func nextStep(_ index: Int, bufferSize: Int) -> Step {
        state.withLock { state in
            if state.stopping { return .stop }
            let now = ContinuousClock.now
            var flow = state.flows[index]
            defer { state.flows[index] = flow }
            switch flow.stall {
            case .indefinitely: return .wait(.milliseconds(10))
            case .until(let end) where end > now: return .wait(min(end - now, .milliseconds(10)))
            default: flow.stall = .flowing
            }
            var limit = bufferSize
            if let cutAfter = flow.faults.cutAfter {
                if flow.forwarded >= cutAfter { return .cut(flow.faults.cutMode) }
                limit = min(limit, cutAfter - flow.forwarded)
            }
            if let stallAfter = flow.faults.stallAfter, !flow.stallTriggered {
                if flow.forwarded >= stallAfter {
                    flow.stallTriggered = true
                    flow.stall = .lasting(flow.faults.stallFor)
                    return .wait(.zero)
                }
                limit = min(limit, stallAfter - flow.forwarded)
            }
            if let rate = flow.rate {
                guard rate > 0 else { return .wait(.milliseconds(10)) }
                // A token bucket holding at most 20 ms of bytes.
                let capacity = max(1, Double(rate) / 50)
                flow.tokens = min(capacity, flow.tokens + (now - flow.refilled).seconds * Double(rate))
                flow.refilled = now
                if flow.tokens < 1 { return .wait(min(.seconds((1 - flow.tokens) / Double(rate)), .milliseconds(10))) }
                limit = min(limit, Int(flow.tokens))
            }
            return .read(limit)
        }
    }

    /// Writes `count` bytes of `buffer` to `sink`, waiting while it is full.
    private func deliver(_ buffer: [UInt8], count: Int, to sink: Int32) -> Delivery {
        var offset = 0
        while offset < count {
            if state.withLock({ $0.stopping }) { return .stopped }
            let written = buffer.withUnsafeBytes {
                send(sink, $0.baseAddress! + offset, count - offset, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                offset += written
            } else if written < 0 && (errno == EAGAIN || errno == EINTR) {
                _ = PlainSocket.wait(sink, for: Int32(POLLOUT), milliseconds: 10)
            } else {
                return .failed
            }
        }
        return .sent
    }

    /// One side ended its stream: the other side gets the FIN; when both did, the connection is closed.
    private func passEnd(of direction: FaultProxy.Direction, to sink: Int32) {
        shutdown(sink, Int32(SHUT_WR))
        state.withLock { state in
            state.flows[direction.index].finished = true
            if state.flows.allSatisfy(\.finished), !state.stopping {
                state.stopping = true
                state.ending = .closed
            }
        }
    }

    /// Ends the connection (once): a reset (after what was forwarded was acknowledged, when
    /// `draining`) or a FIN to both sides. The threads see it within 10 ms; the last closes.
    private func end(_ ending: FaultProxy.Ending, resetting: Bool, draining: Bool) {
        // Counted as a running thread while it works on the descriptors, so that they stay open.
        let first = state.withLock { state in
            guard !state.stopping, state.threadsRunning > 0 else { return false }
            state.stopping = true
            state.ending = ending
            state.threadsRunning += 1
            return true
        }
        guard first else { return }
        defer { threadEnded() }
        if resetting {
            if draining {
                PlainSocket.waitUntilAcknowledged(client, limit: .milliseconds(500))
                PlainSocket.waitUntilAcknowledged(server, limit: .milliseconds(500))
            }
            PlainSocket.setResetOnClose(client)
            PlainSocket.setResetOnClose(server)
        } else {
            // A FIN each way; what the peers still send is read and dropped before the close
            // (``threadEnded()``), so that the close is not a reset after all.
            shutdown(client, Int32(SHUT_WR))
            shutdown(server, Int32(SHUT_WR))
        }
    }

    private func threadEnded() {
        let last = state.withLock { state in
            state.threadsRunning -= 1
            return state.threadsRunning == 0
        }
        if last {
            if case .cut(.close) = state.withLock({ $0.ending }) {
                PlainSocket.discardUntilClosed(client, limit: .seconds(1))
                PlainSocket.discardUntilClosed(server, limit: .seconds(1))
            }
            close(client)
            close(server)
        }
    }
}
