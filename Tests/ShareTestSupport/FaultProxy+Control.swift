import Foundation

/// The control lines of a proxy run as a process (`ShareFaultProxy`, Tests/Hosts/README.md): one
/// command a line, one JSON answer a line.
///
///     cut [reset] [conn=N]                       cut connection N, or every open one
///     stall [for=SECONDS] [dir=up|down] [conn=N] stop forwarding (for SECONDS, or until resume)
///     resume [dir=up|down] [conn=N]              forward again
///     rate BYTES_PER_SECOND|off [dir=up|down] [conn=N]
///     down [reset]                               refuse (or accept and reset) new connections
///     up                                         accept again
///     plan [conn=N] dir=up|down [cut=N] [reset] [stall=N] [for=SECONDS] [rate=R] [flip=N]
///                                                faults for connection N (or for every connection
///                                                without a plan), set before it is accepted
///     stats                                      bytes and connections so far
///
/// Answers: `{"ok":true}`, `{"ok":false,"error":"..."}`, and for `stats`
/// `{"ok":true,"upstream":N,"downstream":N,"refused":N,"connections":[{"index":0,"upstream":N,
/// "downstream":N,"ending":"cut (close)"}]}` (`ending` is null while the connection is open).
extension FaultProxy {
    /// Carries out one control line and returns its one-line JSON answer.
    public func perform(_ line: String) -> String {
        var words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { return Self.answer(["ok": false, "error": "empty command"]) }
        let command = words.removeFirst()
        do {
            let arguments = try ControlArguments(words)
            switch command {
            case "cut":
                try arguments.allow(["conn"], flags: ["reset"])
                cut(connection: try arguments.int("conn"), mode: arguments.flags.contains("reset") ? .reset : .close)
            case "stall":
                try arguments.allow(["for", "dir", "conn"])
                stall(
                    try arguments.direction(), for: try arguments.duration("for"), connection: try arguments.int("conn")
                )
            case "resume":
                try arguments.allow(["dir", "conn"])
                resume(try arguments.direction(), connection: try arguments.int("conn"))
            case "rate":
                try arguments.allow(["dir", "conn"], positional: 1)
                let text = arguments.positional.first ?? ""
                guard text == "off" || Int(text) != nil else {
                    throw ControlError("rate wants BYTES_PER_SECOND or off")
                }
                setRate(Int(text), try arguments.direction(), connection: try arguments.int("conn"))
            case "down":
                try arguments.allow([], flags: ["reset"])
                goDown(arguments.flags.contains("reset") ? .reset : .refuse)
            case "up":
                try arguments.allow([])
                try comeUp()
            case "plan":
                try arguments.allow(["conn", "dir", "cut", "stall", "for", "rate", "flip"], flags: ["reset"])
                try plan(arguments)
            case "stats":
                try arguments.allow([])
                return statistics()
            default:
                throw ControlError("unknown command '\(command)'")
            }
            return Self.answer(["ok": true])
        } catch {
            return Self.answer(["ok": false, "error": "\(error)"])
        }
    }

    private func plan(_ arguments: ControlArguments) throws {
        guard let direction = try arguments.direction() else { throw ControlError("plan wants dir=up or dir=down") }
        let connection = try arguments.int("conn")
        let faults = Faults(
            cutAfter: try arguments.int("cut"), cutMode: arguments.flags.contains("reset") ? .reset : .close,
            stallAfter: try arguments.int("stall"), stallFor: try arguments.duration("for"),
            bytesPerSecond: try arguments.int("rate"), flipAt: try arguments.int("flip"))
        var upstream = scheduledFaults(.upstream, connection: connection)
        var downstream = scheduledFaults(.downstream, connection: connection)
        if direction == .upstream { upstream = faults } else { downstream = faults }
        schedule(connection: connection, upstream: upstream, downstream: downstream)
    }

    private func statistics() -> String {
        let connections = connections.map { report -> [String: Any] in
            [
                "index": report.index, "upstream": report.upstream, "downstream": report.downstream,
                "ending": report.ending.map { $0.description } ?? NSNull(),
            ]
        }
        return Self.answer([
            "ok": true, "upstream": bytesForwarded(.upstream), "downstream": bytesForwarded(.downstream),
            "refused": refusedWhileDown, "connections": connections,
        ])
    }

    private static func answer(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
