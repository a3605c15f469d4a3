import Foundation
import ShareDocuments
import ShareHTTP
import ShareLocalSend
import ShareTLS
import ShareTransport

/// Sends files to a LocalSend device (protocol v2 upload API): `prepare-upload` with every file's
/// name, size and SHA-256, then one `upload` per file the device accepted, and `cancel` when the
/// send is abandoned after the device opened a session.
///
/// LocalSend has no folders: a folder's files go with their relative paths as names
/// (`Photos/2024/a.jpg`); its links and empty folders are left out (``LocalSendReport/leftOut``).
/// A `--text` goes as a `.txt` file.
public enum LocalSendSender {
    /// How long `prepare-upload` waits for the device's user to decide, unless told otherwise.
    public static let decisionWait: Duration = .seconds(300)

    /// Sends `prepared` to `target`, announcing this machine as `alias`.
    ///
    /// - Parameters:
    ///   - pin: the PIN the device asks for, if it does.
    ///   - configDirectory: where devices reached by address are remembered with their fingerprint.
    ///   - progress: told when the device's user is asked, and after each piece uploaded.
    public static func send(
        _ prepared: PreparedSend, to target: LocalSendTarget, alias: String, identity: LocalSendIdentity, pin: String?,
        configDirectory: String, cancellation: SendCancellation?, rateLimit: UInt64? = nil, timeout: Duration = .seconds(10),
        decisionWait: Duration = LocalSendSender.decisionWait, progress: (@Sendable (LocalSendProgress) -> Void)? = nil
    ) async throws(LocalSendError) -> LocalSendReport {
        try await BlockingWork.run("share.localsend-send") { () throws(LocalSendError) -> LocalSendReport in
            try sendBlocking(
                prepared, to: target, alias: alias, identity: identity, pin: pin, configDirectory: configDirectory,
                cancellation: cancellation, rateLimit: rateLimit, timeout: timeout, decisionWait: decisionWait,
                progress: progress)
        }
    }

    static func sendBlocking(
        _ prepared: PreparedSend, to target: LocalSendTarget, alias: String, identity: LocalSendIdentity, pin: String?,
        configDirectory: String, cancellation: SendCancellation?, rateLimit: UInt64?, timeout: Duration,
        decisionWait: Duration, progress: (@Sendable (LocalSendProgress) -> Void)?
    ) throws(LocalSendError) -> LocalSendReport {
        let started = ContinuousClock.now
        // Over plain HTTP nothing binds the connection to the device, and the files and the PIN cross
        // the network readable: share does not send that way.
        guard target.https else {
            throw LocalSendError(
                "\"\(DisplayText.escape(target.label))\" serves plain HTTP (its LocalSend encryption is off): share sends to "
                    + "LocalSend devices only over HTTPS, where the device's certificate is checked and the files are "
                    + "encrypted; turn encryption on in its LocalSend settings, or use share send --link",
                outcome: "plainHTTP")
        }
        let (files, leftOut) = try LocalSendUpload.files(of: prepared)
        let known = LocalSendKnownDevices(configDirectory: configDirectory)
        let expected = target.fingerprint ?? known.fingerprint(of: target.endpoint)
        let client = LocalSendClient(
            endpoint: target.endpoint, label: "\"\(DisplayText.escape(target.label))\"", expectedFingerprint: expected,
            timeout: timeout)

        var query = ""
        if let pin { query = "?pin=" + LocalSendUpload.queryValue(pin) }
        progress?(.waiting)
        let request = LocalSendUpload.prepareBody(files, device: identity.device(alias: alias, port: LocalSendDevice.defaultPort, announce: nil, looksOnly: false))
        let (answer, seen) = try client.send(
            "POST", "/api/localsend/v2/prepare-upload" + query, body: .json(request), answerWait: decisionWait,
            cancellation: cancellation)
        if expected == nil { known.remember(seen, for: target.endpoint) }
        do throws(LocalSendError) {
            return try deliver(
                prepared, files: files, leftOut: leftOut, answer: answer, seen: seen, client: client, target: target,
                started: started, cancellation: cancellation, limiter: rateLimit.map(RateLimiter.init), timeout: timeout,
                progress: progress)
        } catch {
            var failure = error
            failure.fingerprint = failure.fingerprint ?? seen
            throw failure
        }
    }

    /// What follows `prepare-upload`'s answer: the uploads of the files the device accepted.
    private static func deliver(
        _ prepared: PreparedSend, files: [LocalSendUpload.File], leftOut: [String], answer: HTTPMessage, seen: String,
        client: LocalSendClient, target: LocalSendTarget, started: ContinuousClock.Instant,
        cancellation: SendCancellation?, limiter: RateLimiter?, timeout: Duration,
        progress: (@Sendable (LocalSendProgress) -> Void)?
    ) throws(LocalSendError) -> LocalSendReport {
        let pinned = LocalSendClient(
            endpoint: target.endpoint, label: client.label, expectedFingerprint: seen, timeout: timeout)
        var report = LocalSendReport(
            label: target.label, endpoint: target.endpoint.description, fingerprint: seen, files: 0, bytes: 0, seconds: 0,
            leftOut: leftOut)
        if answer.status == 204 {
            report.seconds = (ContinuousClock.now - started).seconds
            return report
        }
        guard answer.status == 200 else {
            throw LocalSendError.status(answer.status, device: client.label, request: "prepare-upload")
        }
        let session = try LocalSendUpload.session(from: answer.body, files: files, device: client.label)
        let accepted = files.filter { session.tokens[$0.id] != nil }
        let total = accepted.reduce(UInt64(0)) { $0 + $1.size }
        var done: UInt64 = 0
        let uploadStarted = ContinuousClock.now
        @Sendable func tell(_ bytes: UInt64, _ filesDone: Int) {
            progress?(
                .sending(
                    TransferProgress(
                        bytesDone: bytes, bytesTotal: total, filesDone: filesDone, filesTotal: accepted.count,
                        elapsed: ContinuousClock.now - uploadStarted)))
        }
        do throws(LocalSendError) {
            for file in files {
                guard let token = session.tokens[file.id] else { continue }
                if cancellation?.isCancelled == true { throw LocalSendError("cancelled", outcome: "cancelled") }
                let target =
                    "/api/localsend/v2/upload?sessionId=\(LocalSendUpload.queryValue(session.id))&fileId="
                    + "\(LocalSendUpload.queryValue(file.id))&token=\(LocalSendUpload.queryValue(token))"
                let body: LocalSendClient.Body
                let base = done
                switch file.source {
                case .bytes(let bytes): body = .bytes(bytes)
                case .file(let index):
                    switch SourceFile.open(prepared, index: index) {
                    case .success(let opened):
                        let filesDone = report.files
                        body = .file(opened, progress: { tell(base + $0, filesDone) })
                    case .failure(let failure): throw LocalSendError(failure.message)
                    }
                }
                let (uploaded, _) = try pinned.send("POST", target, body: body, cancellation: cancellation, limiter: limiter)
                guard uploaded.status == 200 else {
                    throw LocalSendError.status(uploaded.status, device: client.label, request: "upload")
                }
                done += file.size
                report.files += 1
                tell(done, report.files)
                report.bytes += file.size
            }
        } catch {
            // The device drops the session and its partial files.
            _ = try? pinned.send(
                "POST", "/api/localsend/v2/cancel?sessionId=\(LocalSendUpload.queryValue(session.id))", body: .none)
            throw error
        }
        report.declinedFiles = files.count - session.tokens.count
        report.seconds = (ContinuousClock.now - started).seconds
        return report
    }
}
