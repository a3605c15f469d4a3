public import ShareTransport

/// A LocalSend device to send to: where it listens, and the certificate fingerprint it must present.
public struct LocalSendTarget: Sendable {
    /// How it is named in messages (its alias, or the address typed).
    public var label: String
    /// Where its server listens.
    public var endpoint: Endpoint
    /// The fingerprint it announced (nil for a device reached by address: the one seen on first use
    /// is remembered, and a different one afterwards is refused).
    public var fingerprint: String?
    /// Whether it serves HTTPS (a device whose LocalSend encryption is off serves plain HTTP, and is
    /// not sent to).
    public var https: Bool

    /// A target.
    public init(label: String, endpoint: Endpoint, fingerprint: String?, https: Bool = true) {
        self.label = label
        self.endpoint = endpoint
        self.fingerprint = fingerprint
        self.https = https
    }

    /// A device found by discovery: its certificate must have the fingerprint it announced.
    public init(_ device: LocalSendPeer) {
        self.init(
            label: device.alias, endpoint: Endpoint(host: device.address, port: device.port), fingerprint: device.fingerprint,
            https: device.https)
    }

    /// `localsend://HOST[:PORT]` as a target (port 53317 when none is given); nil for another text.
    public static func address(_ text: String) -> LocalSendTarget? {
        let scheme = "localsend://"
        guard text.lowercased().hasPrefix(scheme) else { return nil }
        var rest = String(text.dropFirst(scheme.count))
        while rest.hasSuffix("/") { rest.removeLast() }
        guard !rest.isEmpty else { return nil }
        let endpoint = Endpoint(parsing: rest) ?? Endpoint(host: rest, port: 53317)
        guard !endpoint.host.isEmpty, !endpoint.host.contains("/") else { return nil }
        return LocalSendTarget(label: endpoint.description, endpoint: endpoint, fingerprint: nil)
    }
}
