import Foundation
import ShareKit
import ShareQRCode
import Synchronization
import TypeRegistry

#if canImport(Glibc)
import Glibc
#endif

/// `share send FILE... --link`: serves the files at an address any browser on the network can
/// open (LocalSend's reverse transfer, plain HTTP), shown as text and, on a terminal, as a QR code;
/// until every file was downloaded whole once, the timeout passed, or Ctrl-C.
struct LinkServing {
    /// The port asked for (`--link-port`; LocalSend's 53317 by default, another when it is taken).
    let port: UInt16
    /// How long the link is served at most (`--link-timeout`).
    let timeout: Duration
    /// The PIN asked for before the files are shown (`--pin`, `--pin-file`).
    let pin: String?
    let json: Bool

    func run(_ prepared: PreparedSend, node: LocalNode, console: Console) async throws(CLIError) -> Int32 {
        let identity: LocalSendIdentity
        do {
            identity = try LocalSendIdentity.loadOrCreate(configDirectory: node.paths.configDirectory)
        } catch {
            throw CLIError("cannot load this machine's LocalSend identity: \(error)")
        }
        let link: LocalSendLink
        do {
            link = try await LocalSendLink.open(prepared, alias: node.deviceName(), identity: identity, pin: pin, port: port)
        } catch {
            throw CLIError(error.description)
        }
        // Ctrl-C from the moment the address is shown stops serving, and says so.
        let interruption = SendInterruption()
        let cancellation = interruption.cancellation
        defer { interruption.stop() }
        announce(link, console: console)
        let json = self.json
        let report = await link.serve(timeout: timeout, cancellation: cancellation) { event in
            guard !json else { return }
            switch event {
            case .downloaded(let file, let address, let done, let total):
                console.line("Downloaded '\(TerminalText.safe(file))' by \(address) (\(done) of \(total) \(total == 1 ? "file" : "files")).")
            case .stopped(let file, let address):
                console.line("\(address) stopped downloading '\(TerminalText.safe(file))' before its end.")
            case .lockedOut(let address):
                console.warning("\(address) gave 3 wrong PINs within a minute; it is locked out for a minute.")
            }
        }
        return finish(report, link: link, interrupted: interruption.signal, console: console)
    }

    /// Prints the addresses (and the QR code of the first on a terminal), or the JSON object.
    private func announce(_ link: LocalSendLink, console: Console) {
        let minutes = DurationText.format(timeout)
        if json {
            console.line(
                JSON.object([
                    ("ok", .bool(true)), ("outcome", .string("serving")), ("protocol", .string("localsend-link")),
                    ("url", .string(link.urls[0])), ("urls", .array(link.urls.map { .string($0) })),
                    ("port", .int(Int(link.port))), ("pin", .bool(link.asksForPin)), ("files", .int(link.fileCount)),
                    ("bytes", .int(Int64(link.bytes))), ("leftOut", .array(link.leftOut.map { .string($0) })),
                    ("timeoutSeconds", .int(Int(timeout.components.seconds))),
                ]).text())
            return
        }
        if link.port != link.requestedPort && link.requestedPort != 0 {
            let who = link.requestedPort == LocalSendLink.defaultPort ? " (by a LocalSend app, or share receive --localsend?)" : ""
            console.line("Port \(link.requestedPort) is taken\(who); serving on port \(link.port) instead.")
        }
        for name in link.leftOut {
            console.warning("'\(TerminalText.safe(name))' is left out: a link carries files only, not links or empty folders")
        }
        let files = link.fileCount == 1 ? "1 file" : "\(link.fileCount) files"
        console.line(
            "Serving \(files) (\(ByteCount.format(link.bytes))) until \(link.fileCount == 1 ? "it was" : "each was") "
                + "downloaded once, for at most \(minutes); Ctrl-C stops. Open this address on a phone or computer on the "
                + "same network:")
        for url in link.urls { console.line("  \(url)") }
        if console.stdoutIsTerminal, let code = try? QRCode(encoding: link.urls[0]) {
            for line in code.terminalLines() { console.line(line) }
        }
        if link.onlyThisMachine {
            console.warning("this machine has no network address: only a browser on this machine can open the link")
        }
        console.line(
            "Plain HTTP (browsers refuse share's self-signed certificate): anyone on this network who sees the address"
                + (link.asksForPin ? " and knows the PIN" : "") + " can download the files while share serves them.")
    }

    /// Says how it ended; the exit status.
    private func finish(_ report: LocalSendLinkReport, link: LocalSendLink, interrupted: Int32?, console: Console) -> Int32 {
        let done = report.downloadedFiles.count
        let files = "\(done) of \(report.fileCount) \(report.fileCount == 1 ? "file" : "files")"
        let (status, outcome, message): (Int32, String, String?)
        switch report.ending {
        case .complete:
            (status, outcome, message) = (ExitCode.success, "downloaded", nil)
            if !json { console.line("Every file was downloaded; stopped serving.") }
        case .timedOut:
            let why =
                done == 0
                ? "Nobody downloaded \(report.fileCount == 1 ? "the file" : "the files") within "
                    + "\(DurationText.format(timeout)); stopped serving"
                : "Only \(files) were downloaded within \(DurationText.format(timeout)); stopped serving"
            (status, outcome, message) = (
                ExitCode.failure, "timedOut", why + ". Run it again, or give more time with --link-timeout (e.g. 30m)."
            )
        case .cancelled:
            (status, outcome, message) = (128 + (interrupted ?? SIGINT), "cancelled", "Stopped serving (interrupted): \(files) downloaded.")
        case .failed(let reason):
            (status, outcome, message) = (ExitCode.failure, "failed", TerminalText.safe(reason))
        }
        if json {
            console.line(
                JSON.object([
                    ("ok", .bool(status == ExitCode.success)), ("outcome", .string(outcome)),
                    ("protocol", .string("localsend-link")), ("url", .string(link.urls[0])),
                    ("downloadedFiles", .array(report.downloadedFiles.map { .string($0) })), ("files", .int(report.fileCount)),
                    ("downloads", .int(report.downloads)), ("seconds", .double(report.seconds)),
                    ("error", message.map { .string($0) } ?? .null),
                ]).text())
        }
        if let message {
            if case .cancelled = report.ending { console.err(message + "\n") } else { console.error(message) }
        }
        return status
    }
}
