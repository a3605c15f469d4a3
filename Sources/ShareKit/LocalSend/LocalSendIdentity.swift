import Foundation
import ShareDocuments
import ShareLocalSend
public import ShareTLS

/// This machine as LocalSend devices know it: a self-signed certificate of its own (apart from
/// share's identity, so that LocalSend's unauthenticated world never touches share's key), kept in
/// `<config>/localsend/`, and its LocalSend fingerprint, the upper-case hex SHA-256 of the
/// certificate's DER bytes: stable across restarts, as LocalSend devices remember devices by it.
public struct LocalSendIdentity: Sendable {
    /// The key and certificate the LocalSend server presents.
    public let identity: Identity
    /// The fingerprint LocalSend devices see: 64 upper-case hex digits.
    public let fingerprint: String

    /// Loads (or on first use creates) the LocalSend identity under `configDirectory`.
    public static func loadOrCreate(configDirectory: String) throws(IdentityError) -> LocalSendIdentity {
        let directory = configDirectory + "/localsend"
        let identity = try Identity.loadOrCreate(in: directory)
        return LocalSendIdentity(identity: identity, fingerprint: Self.fingerprint(ofPEM: identity.certificatePEM))
    }

    /// The LocalSend fingerprint of the first certificate in `pem`: upper-case hex SHA-256 of its DER.
    static func fingerprint(ofPEM pem: String) -> String {
        let lines = pem.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let body = lines.drop { !$0.hasPrefix("-----BEGIN CERTIFICATE-----") }.dropFirst().prefix { !$0.hasPrefix("-----END") }
        let der = Data(base64Encoded: body.joined()).map { [UInt8]($0) } ?? []
        let digest = der.withUnsafeBytes { SHA256.hash($0) }
        return Hex.encode(digest).uppercased()
    }

    /// How this machine describes itself to LocalSend devices; `looksOnly` when it receives nothing
    /// (`share peers`), else it is a `share receive --localsend` (other share machines skip it).
    func device(alias: String, port: UInt16, announce: Bool?, looksOnly: Bool) -> [UInt8] {
        LocalSendDevice(
            alias: alias, deviceModel: "Linux", deviceType: "desktop", fingerprint: fingerprint, port: port, https: true,
            download: false, announce: announce, looksOnly: looksOnly, shareReceiver: !looksOnly
        ).json
    }
}
