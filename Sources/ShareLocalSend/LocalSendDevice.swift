import Foundation
import ShareDocuments

/// A LocalSend device as it describes itself (protocol v2, "device info"): in multicast
/// announcements, `/register` bodies and replies, and `prepare-upload` requests.
///
/// Parsed with every length bounded before anything is kept (``LocalSendLimits``); unknown fields
/// are ignored and an unknown `deviceType` is kept as it came (the spec asks peers to tolerate it).
/// Nothing here is proven: over HTTPS only the certificate a connection presents proves a
/// fingerprint, and over multicast anybody can claim anything.
public struct LocalSendDevice: Sendable, Hashable {
    /// The name shown to people (escape before printing: it comes from the peer).
    public var alias: String
    /// The protocol version it speaks, "major.minor" ("2.0", "2.1"; any "2.x" is v2).
    public var version: String
    /// Its model, when it says ("Samsung", "Linux").
    public var deviceModel: String?
    /// Its kind: `mobile`, `desktop`, `web`, `headless`, `server`, or what it sent.
    public var deviceType: String?
    /// The fingerprint it claims: over HTTPS the SHA-256 of its certificate, in hex.
    public var fingerprint: String
    /// The port of its HTTP(S) server.
    public var port: UInt16
    /// Whether its server speaks HTTPS (else plain HTTP).
    public var https: Bool
    /// Whether it serves the download API (reverse transfer).
    public var download: Bool
    /// In a multicast message: `true` asks others to answer, `false` is an answer; nil elsewhere.
    public var announce: Bool?
    /// share's own extension (`"shareLooksOnly": true`, a field LocalSend apps ignore): the
    /// announcement of a `share peers` that only looks for devices and receives nothing, so that
    /// other share machines do not list it as a device to send to.
    public var looksOnly: Bool
    /// share's own extension (`"shareReceiver": true`): a `share receive --localsend`, which other share
    /// machines reach with share's own protocol (mutually authenticated) rather than as a LocalSend
    /// device, so they do not list it as one.
    public var shareReceiver: Bool

    /// The multicast group and UDP port LocalSend devices announce on, and the default HTTP(S) port.
    public static let multicastGroup = "224.0.0.167"
    /// The default UDP and TCP port.
    public static let defaultPort: UInt16 = 53317
    /// The protocol version share speaks.
    public static let protocolVersion = "2.1"

    /// Creates a device description.
    public init(
        alias: String, version: String = LocalSendDevice.protocolVersion, deviceModel: String?, deviceType: String?,
        fingerprint: String, port: UInt16, https: Bool, download: Bool = false, announce: Bool? = nil,
        looksOnly: Bool = false, shareReceiver: Bool = false
    ) {
        self.alias = alias
        self.version = version
        self.deviceModel = deviceModel
        self.deviceType = deviceType
        self.fingerprint = fingerprint
        self.port = port
        self.https = https
        self.download = download
        self.announce = announce
        self.looksOnly = looksOnly
        self.shareReceiver = shareReceiver
    }

    /// Whether it speaks version 2 (any "2.x").
    public var speaksVersion2: Bool { version == "2" || version.hasPrefix("2.") }

    /// Parses a device description from a JSON object of at most `LocalSendLimits.messageBytes`.
    public init(json bytes: some Collection<UInt8>) throws(LocalSendMessageError) {
        guard bytes.count <= LocalSendLimits.messageBytes else {
            throw .tooLong(bytes: bytes.count, limit: LocalSendLimits.messageBytes)
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw .notJSON
        }
        guard let fields = object as? [String: Any] else { throw .notJSON }
        try self.init(fields: fields)
    }

    /// Reads a device description from a parsed JSON object (`info` of a `prepare-upload`, say).
    public init(fields: [String: Any]) throws(LocalSendMessageError) {
        func text(_ key: String, limit: Int, required: Bool) throws(LocalSendMessageError) -> String? {
            guard let value = fields[key], !(value is NSNull) else {
                if required { throw .missingField(key) }
                return nil
            }
            guard let string = value as? String else { throw .invalidField(key, "not a string") }
            guard string.utf8.count <= limit else { throw .invalidField(key, "longer than \(limit) bytes") }
            return string
        }
        alias = try text("alias", limit: LocalSendLimits.aliasBytes, required: true) ?? ""
        version = try text("version", limit: 16, required: false) ?? "1.0"
        deviceModel = try text("deviceModel", limit: LocalSendLimits.aliasBytes, required: false)
        deviceType = try text("deviceType", limit: 32, required: false)
        let claimed = try text("fingerprint", limit: LocalSendLimits.fingerprintBytes, required: true) ?? ""
        guard !claimed.isEmpty else { throw .invalidField("fingerprint", "empty") }
        fingerprint = claimed
        switch fields["port"] {
        case nil, is NSNull: port = Self.defaultPort
        case let number as NSNumber:
            guard let value = UInt16(exactly: number.doubleValue), value > 0 else { throw .invalidField("port", "not a port") }
            port = value
        default: throw .invalidField("port", "not a number")
        }
        switch try text("protocol", limit: 8, required: false) {
        case nil, "https": https = true
        case "http": https = false
        case let other?: throw .invalidField("protocol", "'\(DisplayText.escape(other))' is neither http nor https")
        }
        download = (fields["download"] as? Bool) ?? false
        announce = fields["announce"] as? Bool ?? (fields["announcement"] as? Bool)
        looksOnly = fields["shareLooksOnly"] as? Bool ?? false
        shareReceiver = fields["shareReceiver"] as? Bool ?? false
    }

    /// This description as a JSON object (keys sorted), with `announce` when it is set.
    public var json: [UInt8] {
        var fields: [String: Any] = [
            "alias": alias, "version": version, "fingerprint": fingerprint, "port": Int(port),
            "protocol": https ? "https" : "http", "download": download,
        ]
        fields["deviceModel"] = deviceModel ?? NSNull()
        fields["deviceType"] = deviceType ?? NSNull()
        if let announce { fields["announce"] = announce }
        if looksOnly { fields["shareLooksOnly"] = true }
        if shareReceiver { fields["shareReceiver"] = true }
        // Strings and numbers only: serializing cannot fail.
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Array(data)
    }

    /// Whether two fingerprints are the same: hex is compared ignoring case (peers differ in the
    /// case they write).
    public static func sameFingerprint(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.lowercased() == b.lowercased()
    }
}
