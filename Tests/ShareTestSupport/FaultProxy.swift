import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy that injects faults between two real endpoints: it listens on a port, forwards each
/// connection to a target `HOST:PORT`, and can, per connection and per direction, cut the connection
/// after N bytes (FIN or reset), stall for a while with the connection open, throttle to a rate,
/// flip one byte in transit, and refuse or reset new connections while "down". It counts the bytes
/// it forwards in each direction.
///
/// Faults are planned before a connection exists with ``schedule(connection:upstream:downstream:)``
/// (connections are numbered from 0 in the order they are accepted), or applied while it runs with
/// ``cut(connection:mode:)``, ``stall(_:for:connection:)``, ``resume(_:connection:)``,
/// ``setRate(_:_:connection:)``, ``goDown(_:)`` and ``comeUp()``.
///
/// ```swift
/// let proxy = try FaultProxy(toHost: "127.0.0.1", port: receiverPort)
/// proxy.schedule(connection: 0, upstream: .init(cutAfter: 1_000_000))   // the first try is cut after 1 MB
/// // share send FILE --to 127.0.0.1:\(proxy.port)
/// try await proxy.waitForConnections(2)
/// let onTheWire = proxy.bytesForwarded(.upstream)
/// ```
///
/// Each connection runs on two threads of its own with plain non-blocking sockets (no Swift
/// concurrency in the data path); commands take effect within about 10 ms. The proxy stops when it
/// is released or with ``stop()``. `ShareFaultProxy` (Tests/Hosts) runs one as a process, controlled
/// by lines on stdin (``perform(_:)``).
public final class FaultProxy: Sendable {
    /// The address the proxy listens on.
    public let address: String
    /// The port the proxy listens on.
    public let port: Int
    /// Where connections are forwarded to.
    public let targetHost: String
    /// The target's port.
    public let targetPort: Int
    private let state: Mutex<State>

    private struct State {
        var listener: Int32
        var listenError: String?
        var down: DownMode?
        var generation = 0
        var appliedGeneration = 0
        var stopped = false
        var acceptorRunning = true
        var schedules: [Int: [Faults]] = [:]
        var defaultFaults: [Faults] = [.none, .none]
        var rates: [Int?] = [nil, nil]
        var stalls: [StallState] = [.flowing, .flowing]
        var connections: [ProxiedConnection] = []
        var refusedWhileDown = 0
    }

    /// Listens on `address`:`listenPort` (0: a free port, see ``port``) and forwards each connection
    /// to `host`:`port`.
    public init(toHost host: String, port: Int, listenOn address: String = "127.0.0.1", listenPort: Int = 0) throws {
        let (listener, boundPort) = try PlainSocket.listen(on: address, port: listenPort)
        self.address = address
        self.port = boundPort
        targetHost = host
        targetPort = port
        state = Mutex(State(listener: listener))
        Thread.detachNewThread { [weak self] in
            while let proxy = self, proxy.serviceListener() {}
        }
    }

    deinit {
        // The acceptor holds the proxy during each of its rounds, so none is running now.
        let listener = state.withLock { $0.listener }
        if listener >= 0 { close(listener) }
        finishConnections()
    }

    /// Where clients connect: `address:port` (brackets around an IPv6 address).
    public var endpoint: String { address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)" }

    // MARK: Planned faults

    /// Plans the faults of connection `connection` (0: the first accepted), or of every connection
    /// without a plan of its own when nil. Takes effect for connections accepted afterwards.
    public func schedule(connection: Int? = nil, upstream: Faults = .none, downstream: Faults = .none) {
        state.withLock { state in
            if let connection {
                state.schedules[connection] = [upstream, downstream]
            } else {
                state.defaultFaults = [upstream, downstream]
            }
        }
    }

    /// The faults planned for `direction` of `connection` (nil: of connections without a plan).
    public func scheduledFaults(_ direction: Direction, connection: Int? = nil) -> Faults {
        state.withLock { state in
            (connection.flatMap { state.schedules[$0] } ?? state.defaultFaults)[direction.index]
        }
    }

    // MARK: Commands

    /// Cuts connection `connection`, or every open connection when nil.
    public func cut(connection: Int? = nil, mode: CutMode = .close) {
        for target in connections(connection) { target.cut(mode) }
    }

    /// Cuts every open connection.
    public func cutAll(mode: CutMode = .close) { cut(mode: mode) }

    /// Stops forwarding (in `direction`, or both ways when nil) for `duration`, or until ``resume(_:connection:)``
    /// when nil; the connections stay open. Without a connection it applies to every open
    /// connection and to those accepted while the stall lasts.
    public func stall(_ direction: Direction? = nil, for duration: Duration? = nil, connection: Int? = nil) {
        let directions = direction.map { [$0] } ?? Direction.allCases
        let stall = StallState.lasting(duration)
        if connection == nil { state.withLock { state in for d in directions { state.stalls[d.index] = stall } } }
        for target in connections(connection) { target.stall(directions, stall) }
    }

    /// Ends stalls (commanded or planned) in `direction` (both when nil), on `connection` or everywhere.
    public func resume(_ direction: Direction? = nil, connection: Int? = nil) {
        let directions = direction.map { [$0] } ?? Direction.allCases
        if connection == nil { state.withLock { state in for d in directions { state.stalls[d.index] = .flowing } } }
        for target in connections(connection) { target.stall(directions, .flowing) }
    }

    /// Limits forwarding to `bytesPerSecond` (nil: no limit) in `direction` (both when nil). Without a
    /// connection it applies to every open connection and to those accepted later.
    public func setRate(_ bytesPerSecond: Int?, _ direction: Direction? = nil, connection: Int? = nil) {
        let directions = direction.map { [$0] } ?? Direction.allCases
        if connection == nil {
            state.withLock { state in for d in directions { state.rates[d.index] = bytesPerSecond } }
        }
        for target in connections(connection) { target.setRate(directions, bytesPerSecond) }
    }

    /// Takes the proxy down: new connections are refused (it stops listening) or accepted and reset at
    /// once. Open connections are not touched (``cutAll(mode:)`` cuts them). Returns once in effect.
    public func goDown(_ mode: DownMode = .refuse) {
        change { $0.down = mode }
    }

    /// Brings the proxy back up on the same port.
    ///
    /// - Throws: ``HarnessError`` when the port cannot be listened on again.
    public func comeUp() throws {
        change { $0.down = nil }
        if let error = state.withLock({ $0.listenError }) { throw HarnessError(description: error) }
    }

    /// Stops listening, closes every connection (FIN) and waits (at most 2 seconds) for their threads.
    public func stop() {
        state.withLock { $0.stopped = true }
        let deadline = ContinuousClock.now + .seconds(2)
        while state.withLock({ $0.acceptorRunning }) && ContinuousClock.now < deadline { usleep(1000) }
        finishConnections()
    }

    // MARK: Reports

    /// Every connection accepted so far (also those that ended), in order.
    public var connections: [ConnectionReport] { state.withLock { $0.connections }.map(\.report) }

    /// Bytes forwarded in `direction`, over every connection so far.
    public func bytesForwarded(_ direction: Direction) -> Int {
        connections.reduce(0) { $0 + $1[direction] }
    }

    /// Connections accepted and reset while the proxy was down (``DownMode/reset``).
    public var refusedWhileDown: Int { state.withLock { $0.refusedWhileDown } }

    /// Waits until `count` connections were accepted.
    public func waitForConnections(_ count: Int, timeout: Duration = .seconds(30)) async throws {
        try await waitUntil("\(count) connections", timeout: timeout) { $0.connections.count >= count }
    }

    /// Waits until at least `count` bytes were forwarded in `direction` (on `connection`, or in all).
    public func waitForBytes(
        _ direction: Direction, atLeast count: Int, connection: Int? = nil, timeout: Duration = .seconds(30)
    ) async throws {
        try await waitUntil("\(count) bytes \(direction)", timeout: timeout) { proxy in
            if let connection {
                return proxy.connections.first { $0.index == connection }.map { $0[direction] >= count } ?? false
            }
            return proxy.bytesForwarded(direction) >= count
        }
    }

    /// Waits until connection `connection` ended, and says how.
    @discardableResult
    public func waitForEnding(connection: Int, timeout: Duration = .seconds(30)) async throws -> Ending {
        var ending: Ending?
        try await waitUntil("the end of connection \(connection)", timeout: timeout) { proxy in
            ending = proxy.connections.first { $0.index == connection }?.ending
            return ending != nil
        }
        return ending ?? .closed
    }

    private func waitUntil(_ what: String, timeout: Duration, _ condition: (FaultProxy) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(self) {
            guard ContinuousClock.now < deadline else {
                throw HarnessError(
                    description: "fault proxy: no \(what) within \(timeout); connections: \(connections)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    // MARK: Inside

    private func connections(_ index: Int?) -> [ProxiedConnection] {
        state.withLock { state in state.connections.filter { index == nil || $0.index == index } }
    }

    /// Applies `body` to the state, then waits until the acceptor has acted on it.
    private func change(_ body: (inout State) -> Void) {
        let generation = state.withLock { state in
            body(&state)
            state.generation += 1
            return state.generation
        }
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline
            && state.withLock({ $0.appliedGeneration < generation && $0.acceptorRunning })
        {
            usleep(1000)
        }
    }

    /// One round of the acceptor thread: applies the up/down state, waits (at most 5 ms) for new
    /// connections and forwards them. Returns false once stopped.
    private func serviceListener() -> Bool {
        let (listener, down, stopped) = state.withLock { state in
            if state.stopped {
                if state.listener >= 0 { close(state.listener) }
                state.listener = -1
                state.acceptorRunning = false
                return (Int32(-1), DownMode?.none, true)
            }
            if state.appliedGeneration != state.generation {
                if state.down == .refuse, state.listener >= 0 {
                    close(state.listener)
                    state.listener = -1
                } else if state.down != .refuse, state.listener < 0 {
                    do {
                        state.listener = try PlainSocket.listen(on: address, port: port).descriptor
                        state.listenError = nil
                    } catch {
                        state.listenError = "fault proxy: cannot listen again: \(error)"
                    }
                }
                state.appliedGeneration = state.generation
            }
            return (state.listener, state.down, false)
        }
        guard !stopped else { return false }
        guard listener >= 0 else {
            usleep(5000)
            return true
        }
        guard PlainSocket.wait(listener, for: Int32(POLLIN), milliseconds: 5) != 0 else { return true }
        while let client = PlainSocket.accept(listener) {
            if down == .reset {
                PlainSocket.setResetOnClose(client)
                close(client)
                state.withLock { $0.refusedWhileDown += 1 }
            } else {
                forward(client)
            }
        }
        return true
    }

    /// Connects a new client to the target and starts forwarding.
    private func forward(_ client: Int32) {
        let server: Int32
        do {
            server = try PlainSocket.connect(to: targetHost, port: targetPort, timeout: .seconds(5))
        } catch {
            PlainSocket.setResetOnClose(client)
            close(client)
            state.withLock { state in
                state.connections.append(ProxiedConnection(index: state.connections.count, unreachable: "\(error)"))
            }
            return
        }
        let connection = state.withLock { state in
            let index = state.connections.count
            let connection = ProxiedConnection(
                index: index, client: client, server: server, faults: state.schedules[index] ?? state.defaultFaults,
                rates: state.rates, stalls: state.stalls)
            state.connections.append(connection)
            return connection
        }
        connection.start()
    }

    /// Closes every connection and waits (at most 2 seconds) for their threads.
    private func finishConnections() {
        let all = state.withLock { $0.connections }
        for connection in all { connection.cut(.close) }
        let deadline = ContinuousClock.now + .seconds(2)
        while !all.allSatisfy(\.hasEnded) && ContinuousClock.now < deadline { usleep(1000) }
    }
}
