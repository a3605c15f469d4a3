/// What a send to a LocalSend device did.
public struct LocalSendReport: Sendable {
    /// The device, as named (alias or address).
    public var label: String
    /// Where it was reached.
    public var endpoint: String
    /// The fingerprint its certificate proved.
    public var fingerprint: String
    /// Files uploaded, and their bytes.
    public var files: Int
    public var bytes: UInt64
    /// Seconds from the first request to the last answer (the device's user deciding included).
    public var seconds: Double
    /// What LocalSend cannot carry and was left out (links, empty folders), as paths.
    public var leftOut: [String]
    /// Files the device's user did not accept (LocalSend lets a person take some of the files).
    public var declinedFiles = 0
}
