import ShareLocalSend

/// A LocalSend device seen on the local network (a phone, another computer running LocalSend).
///
/// Everything here is what the device claims: LocalSend has no mutual authentication, so a
/// LocalSend peer is never "verified" the way a share peer is. Its fingerprint is checked against
/// the certificate it presents before anything is sent to it.
public struct LocalSendPeer: Sendable, Hashable {
    /// The name it shows (escape before printing).
    public var alias: String
    /// Its kind as it says: `mobile`, `desktop`, `web`, `headless`, `server` (or what it sent).
    public var deviceType: String?
    /// Its model, when it says.
    public var deviceModel: String?
    /// The fingerprint it claims (hex SHA-256 of its certificate over HTTPS).
    public var fingerprint: String
    /// The IPv4 address its message came from.
    public var address: String
    /// The port of its server.
    public var port: UInt16
    /// Whether its server speaks HTTPS.
    public var https: Bool
    /// The protocol version it speaks ("2.1").
    public var version: String
    /// Whether it serves the download API.
    public var download: Bool

    /// A device as it described itself, heard from `address`.
    public init(
        alias: String, deviceType: String?, deviceModel: String?, fingerprint: String, address: String, port: UInt16,
        https: Bool, version: String, download: Bool
    ) {
        self.alias = alias
        self.deviceType = deviceType
        self.deviceModel = deviceModel
        self.fingerprint = fingerprint
        self.address = address
        self.port = port
        self.https = https
        self.version = version
        self.download = download
    }

    /// `address:port`, as `localsend://` addresses and tables show it.
    public var endpoint: String { "\(address):\(port)" }
}

extension LocalSendPeer {
    /// A device as `device` describes itself, heard from `address`, its server at `port`.
    init(_ device: LocalSendDevice, address: String, port: UInt16) {
        self.init(
            alias: device.alias, deviceType: device.deviceType, deviceModel: device.deviceModel,
            fingerprint: device.fingerprint, address: address, port: port, https: device.https, version: device.version,
            download: device.download)
    }
}
