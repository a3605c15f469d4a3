extension FaultProxy {
    /// A direction of a proxied connection.
    public enum Direction: String, Sendable, CaseIterable, CustomStringConvertible {
        /// From the client that connected to the proxy to the target (a sender's data to its receiver).
        case upstream
        /// From the target back to the client (a receiver's answers).
        case downstream

        var index: Int { self == .upstream ? 0 : 1 }

        public var description: String { rawValue }
    }

    /// How a connection is cut.
    public enum CutMode: String, Sendable, CustomStringConvertible {
        /// Both sides get a FIN after what was already forwarded (a side that still had bytes on the way
        /// to the proxy may then get a reset: the kernel's rule for data unread at close).
        case close
        /// Both sides get a TCP reset (SO_LINGER 0), after what was already forwarded was acknowledged.
        case reset

        public var description: String { rawValue }
    }

    /// What a proxy that is down does with new connections.
    public enum DownMode: String, Sendable {
        /// It does not listen: connecting fails at once with "connection refused".
        case refuse
        /// It accepts each connection and resets it at once (the client sees "connection reset").
        case reset
    }

    /// Faults planned for one direction of a connection, before the connection exists
    /// (``FaultProxy/schedule(connection:upstream:downstream:)``). Offsets count the bytes of this
    /// direction on this connection, from 0.
    public struct Faults: Sendable, Equatable {
        /// Once this many bytes went through in this direction, the whole connection is cut (`cutMode`):
        /// the other side receives exactly these bytes, then the end.
        public var cutAfter: Int?
        /// How the connection is cut after `cutAfter` bytes.
        public var cutMode: CutMode
        /// Once this many bytes went through, forwarding in this direction pauses for `stallFor`
        /// (nil: until ``FaultProxy/resume(_:connection:)``); the connection stays open.
        public var stallAfter: Int?
        /// How long the stall after `stallAfter` bytes lasts (nil: until resumed).
        public var stallFor: Duration?
        /// At most this many bytes a second (nil: as fast as they come).
        public var bytesPerSecond: Int?
        /// The byte at this offset is inverted (XOR 0xFF) on its way through.
        public var flipAt: Int?

        public init(
            cutAfter: Int? = nil, cutMode: CutMode = .close, stallAfter: Int? = nil, stallFor: Duration? = nil,
            bytesPerSecond: Int? = nil, flipAt: Int? = nil
        ) {
            self.cutAfter = cutAfter
            self.cutMode = cutMode
            self.stallAfter = stallAfter
            self.stallFor = stallFor
            self.bytesPerSecond = bytesPerSecond
            self.flipAt = flipAt
        }

        /// No fault: bytes pass as they come.
        public static let none = Faults()
    }

    /// How a proxied connection ended.
    public enum Ending: Sendable, Equatable, CustomStringConvertible {
        /// Both sides closed their end, and each end was passed on.
        case closed
        /// The proxy cut it (scheduled or on command).
        case cut(CutMode)
        /// One side reset it or vanished; the reset was passed on to the other side.
        case reset
        /// The proxy could not connect to its target; the client was reset.
        case targetUnreachable(String)

        public var description: String {
            switch self {
            case .closed: "closed"
            case .cut(let mode): "cut (\(mode))"
            case .reset: "reset"
            case .targetUnreachable(let reason): "target unreachable (\(reason))"
            }
        }
    }

    /// What happened on one proxied connection so far.
    public struct ConnectionReport: Sendable, Equatable {
        /// Its place in the order connections were accepted (0: the first).
        public let index: Int
        /// Bytes forwarded from the client to the target.
        public var upstream: Int
        /// Bytes forwarded from the target to the client.
        public var downstream: Int
        /// How it ended; nil while it is open.
        public var ending: Ending?

        public init(index: Int, upstream: Int, downstream: Int, ending: Ending?) {
            self.index = index
            self.upstream = upstream
            self.downstream = downstream
            self.ending = ending
        }

        /// Bytes forwarded in `direction`.
        public subscript(direction: Direction) -> Int { direction == .upstream ? upstream : downstream }
    }
}
