public import Foundation
public import ShareKit
public import ShareTLS
public import ShareWire
import Synchronization
public import TypeRegistry

/// A real receiver on loopback (port 0) in this process, with its own identity and folder,
/// collecting every outcome for the test to inspect.
public final class ReceiverHarness: Sendable {
    /// The running receiver.
    public let receiver: Receiver
    /// The receive folder.
    public let destination: String
    /// The inbox (transfers are staged here; documents wait here for their import).
    public let inbox: String
    /// The receiver's identity.
    public let identity: Identity
    private let outcomes: OutcomeQueue

    /// Starts a receiver in `directory` (identity in `receiver-config` unless `identity` is given,
    /// files in `received`, inbox in `inbox` unless another is given), deciding each offer with
    /// `decide` and typing documents with `registry` (by default the built-in types only, so every
    /// document goes to the receive folder); importers get `environment`; `configure` may adjust
    /// the configuration (e.g. team CAs, limits).
    public init(
        in directory: TemporaryDirectory, name: String = "desk", idleTimeout: Duration = .seconds(20),
        identity: Identity? = nil,
        registry: TypeRegistry = TypeRegistry(), receiptWait: Duration = .seconds(60), inbox: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        decide: @escaping @Sendable (IncomingOffer) -> Decision = { _ in .accept },
        // After `decide`, so that a trailing closure binds to `decide`.
        configure: (inout ReceiverConfiguration) -> Void = { _ in }
    ) throws {
        self.identity = try identity ?? Identity.loadOrCreate(in: directory.at("receiver-config"))
        destination = directory.at("received")
        self.inbox = inbox ?? directory.at("inbox")
        let outcomes = OutcomeQueue()
        self.outcomes = outcomes
        var configuration = ReceiverConfiguration(port: 0, destination: destination, deviceName: name)
        configuration.idleTimeout = idleTimeout
        configuration.inbox = self.inbox
        configuration.registry = RegistryProvider(fixed: registry)
        configuration.receiptWait = receiptWait
        configuration.importEnvironment = environment
        configure(&configuration)
        receiver = try Receiver(
            configuration: configuration, identity: self.identity,
            events: ReceiverEvents(decide: { offer, _ in decide(offer) }, finished: { outcomes.push($0) }))
        let receiver = self.receiver
        Thread { receiver.run() }.start()
    }

    /// Where to connect.
    public var endpoint: String { "127.0.0.1:\(receiver.port)" }

    /// Waits for the next outcome (at most `timeout`).
    public func nextOutcome(timeout: Duration = .seconds(60)) -> IncomingOutcome? {
        outcomes.pop(timeout: timeout)
    }

    /// ``nextOutcome(timeout:)`` without holding a thread of Swift's cooperative pool.
    public func nextOutcome(timeout: Duration = .seconds(60)) async -> IncomingOutcome? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let outcome = outcomes.tryPop() { return outcome }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return outcomes.tryPop()
    }

    /// Stops the receiver and waits for its threads.
    public func stop() {
        receiver.stop()
        receiver.waitForTransfers()
    }

    deinit { stop() }
}

/// Outcomes in arrival order, with a blocking wait.
final class OutcomeQueue: Sendable {
    private let items = Mutex<[IncomingOutcome]>([])
    private let available = DispatchSemaphore(value: 0)

    func push(_ outcome: IncomingOutcome) {
        items.withLock { $0.append(outcome) }
        available.signal()
    }

    func tryPop() -> IncomingOutcome? {
        guard available.wait(timeout: .now()) == .success else { return nil }
        return items.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    func pop(timeout: Duration) -> IncomingOutcome? {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard available.wait(timeout: .now() + seconds) == .success else { return nil }
        return items.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
