/// A LocalSend device an offer came from, as it describes itself. Nothing proves any of it: LocalSend
/// senders present no certificate, so an offer from one is never from a verified peer, whatever
/// name or fingerprint it gives (docs/SECURITY.md, "LocalSend devices").
public struct LocalSendOrigin: Sendable, Hashable {
    /// The name it gives (escape before printing).
    public var alias: String
    /// Its model, if it says (`iPhone`, `Windows`).
    public var deviceModel: String?
    /// Its kind, if it says (`mobile`, `desktop`, `web`, `headless`, `server`).
    public var deviceType: String?
    /// The LocalSend fingerprint it claims (unproven).
    public var claimedFingerprint: String

    /// Creates the description.
    public init(alias: String, deviceModel: String?, deviceType: String?, claimedFingerprint: String) {
        self.alias = alias
        self.deviceModel = deviceModel
        self.deviceType = deviceType
        self.claimedFingerprint = claimedFingerprint
    }
}
