import Foundation
import ShareKit
import TypeRegistry

/// `share trust list`: verified and blocked peers.
struct TrustListCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List the verified and the blocked peers.",
        options: [.flag("json", help: "Print the list as JSON.")]
    )

    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let store = try TrustCommandSupport.load(context.paths)
        let console = context.console
        let dates = ISO8601DateFormatter()
        if json {
            // `fingerprint` is always all 64 digits (null for a block by prefix); `fingerprintPrefix` the first 16.
            let peers: [JSON] = store.peers.map { peer in
                .object([
                    ("name", .string(peer.name)), ("fingerprint", .string(peer.fingerprint)),
                    ("fingerprintPrefix", .string(String(peer.fingerprint.prefix(16)))),
                    ("verification", .string(peer.verification.rawValue)), ("since", .string(dates.string(from: peer.firstSeen))),
                ])
            }
            let blocked: [JSON] = store.blocked.map { peer in
                .object([
                    ("name", peer.name.isEmpty ? .null : .string(peer.name)),
                    ("fingerprint", peer.fingerprint.count == 64 ? .string(peer.fingerprint) : .null),
                    ("fingerprintPrefix", .string(String(peer.fingerprint.prefix(16)))),
                    ("since", .string(dates.string(from: peer.since))),
                ])
            }
            console.line(JSON.object([("verified", .array(peers)), ("blocked", .array(blocked))]).pretty())
            return ExitCode.success
        }
        if store.peers.isEmpty && store.blocked.isEmpty {
            console.line("No verified or blocked peers yet.")
            return ExitCode.success
        }
        let day = DateFormatter()
        day.dateFormat = "yyyy-MM-dd"
        day.locale = Locale(identifier: "en_US_POSIX")
        var rows = [["NAME", "FINGERPRINT", "STATUS", "SINCE"]]
        for peer in store.peers {
            rows.append([TerminalText.safe(peer.name), TrustCommandSupport.short(peer.fingerprint), "verified (code)", day.string(from: peer.firstSeen)])
        }
        for peer in store.blocked {
            rows.append([TerminalText.safe(peer.name), TrustCommandSupport.short(peer.fingerprint), "blocked", day.string(from: peer.since)])
        }
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            console.line(row.enumerated().map { $0 == 3 ? $1 : $1.rightPadded(widths[$0]) }.joined(separator: "  "))
        }
        return ExitCode.success
    }
}

/// Helpers shared by the trust commands.
enum TrustCommandSupport {
    static func load(_ paths: SharePaths) throws(CLIError) -> TrustStore {
        do {
            return try TrustStore.load(from: paths.configDirectory)
        } catch {
            throw CLIError(error.description)
        }
    }

    static func update<T>(_ paths: SharePaths, _ change: (inout TrustStore) -> T) throws(CLIError) -> T {
        do {
            return try TrustStore.update(in: paths.configDirectory, change)
        } catch {
            throw CLIError(error.description)
        }
    }

    /// The first 16 hex digits, grouped.
    static func short(_ fingerprint: String) -> String { FingerprintText.short(fingerprint) }

    /// The single fingerprint `query` names in the store, or a clear error.
    static func single(_ query: String, in store: TrustStore) throws(CLIError) -> String {
        let matches = store.fingerprints(matching: query)
        if matches.isEmpty {
            if let hex = TrustStore.hexDigits(of: query), hex.count < TrustStore.minimumLookupPrefix,
                store.peers(named: query).isEmpty
            {
                throw CLIError(
                    "'\(TerminalText.safe(query))' is too short: give at least \(TrustStore.minimumLookupPrefix) hex digits of "
                        + "the fingerprint, or the peer's name (see 'share trust list')")
            }
            throw CLIError(
                "no verified or blocked peer is called '\(TerminalText.safe(query))' or has a fingerprint starting with it; "
                    + "see 'share trust list'")
        }
        if matches.count > 1 {
            throw CLIError(
                "'\(TerminalText.safe(query))' matches several peers (\(matches.map { short($0) }.joined(separator: ", "))); "
                    + "use more of the fingerprint")
        }
        return matches[0]
    }
}
