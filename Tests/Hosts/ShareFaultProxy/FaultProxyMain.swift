// ShareFaultProxy: the fault lab's TCP proxy (ShareTestSupport's FaultProxy) as a process, for tests
// across simulated hosts (Tests/Hosts/lan.sh run HOST ShareFaultProxy ...) and for benchmarks.
//
//   ShareFaultProxy --to HOST:PORT [--listen [ADDRESS:]PORT] [--rate BYTES_PER_SECOND]
//
// --rate throttles every connection, both ways, from the start (a slow link, e.g. 12500000 for
// 100 Mbit/s: the compression bench's "tunnel"). Listens (default 0.0.0.0, a free port), prints {"event":"listening","address":...,"port":N}, then
// carries out one control line from stdin at a time (FaultProxy.perform: cut, stall, resume, rate,
// down, up, plan, stats) and answers each with one JSON line. Exits 0 on stdin EOF or "quit", 64 on a
// usage mistake, 69 when it cannot listen.

import Foundation
import ShareTestSupport

@main
struct FaultProxyMain {
    static func main() {
        var arguments = CommandLine.arguments.dropFirst()
        var target: (host: String, port: Int)?
        var listen: (host: String, port: Int) = ("0.0.0.0", 0)
        var rate: Int?
        while let option = arguments.popFirst() {
            guard let value = arguments.popFirst() else { usage() }
            switch option {
            case "--to":
                guard let parsed = hostAndPort(value) else { usage() }
                target = parsed
            case "--listen":
                if let port = Int(value) {
                    listen.port = port
                } else if let parsed = hostAndPort(value) {
                    listen = parsed
                } else {
                    usage()
                }
            case "--rate":
                guard let bytesPerSecond = Int(value), bytesPerSecond > 0 else { usage() }
                rate = bytesPerSecond
            default:
                usage()
            }
        }
        guard let target else { usage() }
        let proxy: FaultProxy
        do {
            proxy = try FaultProxy(
                toHost: target.host, port: target.port, listenOn: listen.host, listenPort: listen.port)
        } catch {
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            exit(69)
        }
        if let rate { proxy.setRate(rate) }
        emit(#"{"address":"\#(proxy.address)","event":"listening","port":\#(proxy.port)}"#)
        while let line = readLine() {
            let command = line.trimmingCharacters(in: .whitespaces)
            if command.isEmpty { continue }
            if command == "quit" { break }
            emit(proxy.perform(command))
        }
        proxy.stop()
        exit(0)
    }

    /// `HOST:PORT` or `[IPV6]:PORT`.
    static func hostAndPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("usage: ShareFaultProxy --to HOST:PORT [--listen [ADDRESS:]PORT] [--rate BYTES_PER_SECOND]\n".utf8))
        exit(64)
    }
}
