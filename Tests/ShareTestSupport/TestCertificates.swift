public import Foundation

/// The certificates of `Certificates/make-test-certs.sh`, generated once per test process by running the
/// script (bash and the openssl command) into a temporary folder, read into memory, and the folder removed.
///
/// Names are the script's file names: `ca/ca.crt`, `node.key`, `node.crt`, `peer.key`, `peer.crt`,
/// `expired.crt`, `not-yet-valid.crt`, `wrong-ca/ca.crt`, `wrong-ca.crt`, `other.key`, `wrong-key.crt`,
/// `self-signed.crt`, `expired-ca/ca.crt`, `expired-ca-node.crt`, `not-a-ca.crt`, `no-certsign-ca.crt`, …
public enum TestCertificates {
    /// The repository's `Certificates/` folder.
    public static var folder: String {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.appendingPathComponent("Certificates").path
    }

    /// `Certificates/team-ca.sh`.
    public static var teamCAScript: String { folder + "/team-ca.sh" }

    /// `Certificates/make-test-certs.sh`.
    public static var makeTestCertsScript: String { folder + "/make-test-certs.sh" }

    /// Every generated file by name, or why generating them failed.
    private static let generated: Result<[String: String], HarnessError> = generate()

    /// The text of a generated file (PEM).
    /// - Throws: ``HarnessError`` if the script failed or made no such file.
    public static func pem(_ name: String) throws -> String {
        let files = try generated.get()
        guard let text = files[name] else {
            throw HarnessError(description: "make-test-certs.sh made no \(name); it made \(files.keys.sorted())")
        }
        return text
    }

    /// Runs a script of `Certificates/` (with bash) and returns its exit status and combined output.
    public static func runScript(_ path: String, _ arguments: [String]) -> (status: Int32, output: String) {
        do {
            let process = try Subprocess(
                executable: "/bin/bash", arguments: [path] + arguments,
                environment: ProcessInfo.processInfo.environment, stdinPipe: false)
            let output = String(decoding: process.readToEnd(), as: UTF8.self)
            return (process.reap(block: true) ?? -1, output)
        } catch {
            return (-1, "\(error)")
        }
    }

    private static func generate() -> Result<[String: String], HarnessError> {
        // Removed when this function returns (the value is released).
        let directory = TemporaryDirectory("certs")
        let out = directory.at("out")
        let (status, output) = runScript(makeTestCertsScript, [out])
        guard status == 0 else {
            return .failure(HarnessError(description: "make-test-certs.sh failed (\(status)): \(output)"))
        }
        var files: [String: String] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: out) else {
            return .failure(HarnessError(description: "cannot list \(out)"))
        }
        for case let relative as String in enumerator where relative.hasSuffix(".crt") || relative.hasSuffix(".key") {
            if let text = try? String(contentsOfFile: out + "/" + relative, encoding: .utf8) {
                files[relative] = text
            }
        }
        return .success(files)
    }
}
