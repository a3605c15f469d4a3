import Foundation
public import ShareTLS

/// Which unverified receivers the user was already told about, so that an unattended send (a cron
/// job) says "not verified" once per receiver rather than on every run. Kept in the state folder as
/// `noted-unverified.json`, bounded to the most recent ``limit`` receivers.
public enum UnverifiedNotes {
    /// The file's name in the state folder.
    public static let fileName = "noted-unverified.json"
    /// The most receivers remembered.
    public static let limit = 1_024

    /// Whether to tell the user that `fingerprint` is not verified: true the first time (it is then
    /// remembered), false afterwards.
    public static func firstTime(_ fingerprint: Fingerprint, stateDirectory: String) -> Bool {
        let path = stateDirectory + "/" + fileName
        var noted = (try? JSONDecoder().decode([String].self, from: Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
        if noted.contains(fingerprint.hex) { return false }
        noted.append(fingerprint.hex)
        if noted.count > limit { noted.removeFirst(noted.count - limit) }
        if let data = try? JSONEncoder().encode(noted) {
            try? FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
            try? AtomicFile.write(data, to: path, mode: 0o600)
        }
        return true
    }
}
