/// A failure of the test harness itself (the simulated LAN or a probe), with the evidence.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
}
