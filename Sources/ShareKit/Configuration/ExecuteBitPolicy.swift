/// What a receiver does with the execute bits of the files it receives (the `execute-bit` setting).
public enum ExecuteBitPolicy: String, Sendable, CaseIterable {
    /// Files keep the execute bits the sender set (as a copy with `cp -p` would).
    case keep
    /// Received files are never executable: every execute bit is cleared.
    case strip
}
