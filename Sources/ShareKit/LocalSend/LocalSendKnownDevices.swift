import Foundation
import ShareTransport

/// LocalSend devices reached by address, with the certificate fingerprint seen the first time:
/// `<config>/localsend/known-devices.json` (`{"HOST:PORT": "FINGERPRINT"}`), so that a changed
/// certificate at that address is refused afterwards, as a changed key is for share's peers.
struct LocalSendKnownDevices {
    let path: String

    init(configDirectory: String) {
        path = configDirectory + "/localsend/known-devices.json"
    }

    private func all() -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20,
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: String]
        else { return [:] }
        return object
    }

    /// The fingerprint seen at `endpoint` before, if any.
    func fingerprint(of endpoint: Endpoint) -> String? { all()[endpoint.description] }

    /// Remembers `fingerprint` for `endpoint` (written whole, then renamed into place).
    func remember(_ fingerprint: String, for endpoint: Endpoint) {
        var devices = all()
        devices[endpoint.description] = fingerprint
        guard let data = try? JSONSerialization.data(withJSONObject: devices, options: [.sortedKeys]) else { return }
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temporary, path) != 0 { unlink(temporary) }
    }
}
