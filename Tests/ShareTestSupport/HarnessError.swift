/// A failure of the test harness itself (the simulated LAN or a process on it), with the evidence.
public struct HarnessError: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
}
