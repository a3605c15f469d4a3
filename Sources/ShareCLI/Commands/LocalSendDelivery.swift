import Foundation
import ShareKit
import Synchronization
import TypeRegistry

/// The part of `share send` that goes to LocalSend devices (phones, other computers running the
/// LocalSend app): which targets are LocalSend devices, the sends, and how each ended.
struct LocalSendDelivery {
    /// A target that names a LocalSend device, and the device.
    struct Target {
        var text: String
        var device: LocalSendTarget
    }

    /// Targets written `localsend://HOST[:PORT]`, apart from the others.
    static func split(_ targets: [String]) -> (others: [String], localSend: [Target]) {
        var others: [String] = []
        var localSend: [Target] = []
        for text in targets {
            if let device = LocalSendTarget.address(text) {
                localSend.append(Target(text: text, device: device))
            } else {
                others.append(text)
            }
        }
        return (others, localSend)
    }

    /// The LocalSend devices nearby that `names` name (alias, any case; or a fingerprint prefix of at
    /// least 8 hex digits), found by LocalSend's discovery; a name no device, or several, answer to
    /// is left out.
    static func claim(_ names: [String], node: LocalNode, wait: Duration) async -> [String: LocalSendTarget] {
        guard !names.isEmpty, wait > .zero else { return [:] }
        let (devices, _) = await LocalSendDiscovery.lookOrWarn(node: node, timeout: wait)
        var claimed: [String: LocalSendTarget] = [:]
        for name in names {
            let lowered = name.lowercased()
            var matches = devices.filter { $0.alias.lowercased() == lowered }
            if matches.isEmpty, name.count >= 8, name.allSatisfy(\.isHexDigit) {
                matches = devices.filter { $0.fingerprint.lowercased().hasPrefix(lowered) }
            }
            // A plain-HTTP device is claimed too: its send then says why it is not sent to.
            guard matches.count == 1, let device = matches.first else { continue }
            claimed[name] = LocalSendTarget(device)
        }
        return claimed
    }

    let node: LocalNode
    let pin: String?
    let cancellation: SendCancellation
    /// `--limit-rate` (or the setting), bytes per second to each device.
    let rateLimit: UInt64?
    /// How long a device's user may take to decide (share's own prompt time).
    let decisionWait: Duration

    /// How a target is named on the progress line.
    static func label(_ target: Target) -> String { "\"\(TerminalText.safe(target.device.label))\"" }

    /// Sends `prepared` to every target at once, each shown on `board` from row `firstRow` on; the
    /// results in the targets' order.
    func send(
        _ prepared: PreparedSend, to targets: [Target], board: ProgressBoard, firstRow: Int
    ) async -> [Result<LocalSendReport, LocalSendError>] {
        guard !targets.isEmpty else { return [] }
        let identity: LocalSendIdentity
        do {
            identity = try LocalSendIdentity.loadOrCreate(configDirectory: node.paths.configDirectory)
        } catch {
            return targets.map { _ in .failure(LocalSendError("cannot load this machine's LocalSend identity: \(error)")) }
        }
        let alias = node.deviceName()
        let configDirectory = node.paths.configDirectory
        let (pin, cancellation, rateLimit, decisionWait) = (self.pin, self.cancellation, self.rateLimit, self.decisionWait)
        return await withTaskGroup(of: (Int, Result<LocalSendReport, LocalSendError>).self) { group in
            for (index, target) in targets.enumerated() {
                group.addTask {
                    do throws(LocalSendError) {
                        let report = try await LocalSendSender.send(
                            prepared, to: target.device, alias: alias, identity: identity, pin: pin,
                            configDirectory: configDirectory, cancellation: cancellation, rateLimit: rateLimit,
                            decisionWait: decisionWait,
                            progress: { progress in
                                switch progress {
                                case .waiting: board.set(firstRow + index, .waiting)
                                case .sending(let transfer): board.update(firstRow + index, transfer)
                                }
                            })
                        board.set(firstRow + index, .done)
                        return (index, .success(report))
                    } catch {
                        board.set(firstRow + index, .done)
                        return (index, .failure(error))
                    }
                }
            }
            var results = [Result<LocalSendReport, LocalSendError>?](repeating: nil, count: targets.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0 ?? .failure(LocalSendError("not sent")) }
        }
    }

    /// Says how each send ended (a line each, or JSON); returns the outcomes of the failures.
    static func report(
        _ results: [Result<LocalSendReport, LocalSendError>], for targets: [Target], json: Bool, single: Bool,
        console: Console
    ) -> [String] {
        var failures: [String] = []
        for (target, result) in zip(targets, results) {
            switch result {
            case .success(let report):
                if json {
                    console.line(
                        JSON.object([
                            ("ok", .bool(true)), ("to", .string(target.text)), ("outcome", .string("sent")),
                            ("protocol", .string("localsend")), ("peer", peer(report)),
                            ("files", .int(Int64(report.files))), ("bytes", .int(Int64(report.bytes))),
                            ("declinedFiles", .int(Int64(report.declinedFiles))),
                            ("leftOut", .array(report.leftOut.map(JSON.string))), ("seconds", .double(report.seconds)),
                        ]).text())
                } else {
                    let files = report.files == 1 ? "1 file" : "\(report.files) files"
                    let declined = report.declinedFiles > 0 ? " (\(report.declinedFiles) not accepted there)" : ""
                    console.line(
                        "Sent \(files) to \"\(TerminalText.safe(report.label))\" (LocalSend device, not verified) at "
                            + "\(report.endpoint): \(ByteCount.format(report.bytes))\(declined) in "
                            + "\(String(format: "%.1f", report.seconds)) s, SHA-256 checked there.")
                    if !report.leftOut.isEmpty {
                        console.warning(
                            "LocalSend has no folders, links or empty folders: left out "
                                + report.leftOut.prefix(5).map { "'\(TerminalText.safe($0))'" }.joined(separator: ", ")
                                + (report.leftOut.count > 5 ? " and \(report.leftOut.count - 5) more" : ""))
                    }
                }
            case .failure(let error):
                failures.append(error.outcome)
                let message = TerminalText.safe(error.description)
                if json {
                    console.line(
                        JSON.object([
                            ("ok", .bool(false)), ("to", .string(target.text)), ("outcome", .string(error.outcome)),
                            ("protocol", .string("localsend")), ("peer", .null), ("error", .string(message)),
                        ]).text())
                    if single { console.error(message) }
                } else {
                    console.error(single ? message : "sending to \(TerminalText.safe(target.text)) failed: \(message)")
                }
            }
        }
        return failures
    }

    private static func peer(_ report: LocalSendReport) -> JSON {
        .object([
            ("name", .string(report.label)), ("address", .string(report.endpoint)),
            ("localsendFingerprint", .string(report.fingerprint)), ("verified", .bool(false)),
        ])
    }
}
