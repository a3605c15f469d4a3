/// Bounds on what a LocalSend peer may send, checked before anything is kept.
public enum LocalSendLimits {
    /// A multicast message or a `/register` body (a device description). LocalSend's own messages
    /// are a few hundred bytes.
    public static let messageBytes = 16 << 10
    /// An alias or a device model, in UTF-8 bytes.
    public static let aliasBytes = 256
    /// A fingerprint: SHA-256 in hex is 64 characters; HTTP-mode devices use a random string.
    public static let fingerprintBytes = 128
}
