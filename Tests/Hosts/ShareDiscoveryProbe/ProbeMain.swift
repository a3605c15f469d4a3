// ShareDiscoveryProbe: a thin command-line front to ShareDiscovery, run inside a simulated
// host (Tests/Hosts/lan.sh run HOST ShareDiscoveryProbe ...) by the multi-host tests.
//
// Every Avahi client must live in its own process on its host: libdbus reads
// DBUS_SYSTEM_BUS_ADDRESS once per process, and if_indextoname() answers for the calling
// process's network namespace.
//
//   ShareDiscoveryProbe publish NAME PORT [KEY=VALUE...]   until stdin closes
//   ShareDiscoveryProbe browse [TYPE]                      until stdin closes
//   ShareDiscoveryProbe snapshot SECONDS [TYPE]            one line, then exit (69: no daemon)
//
// Output: one JSON object per line, {"t": <CLOCK_MONOTONIC ns>, "event": ..., ...}.
// On stdin EOF, `publish` and `browse` call close(), print {"event":"closed"} and exit 0.

import Foundation
import ShareDiscovery

@main
struct ProbeMain {
    static func main() async {
        var arguments = CommandLine.arguments.dropFirst()
        guard let command = arguments.popFirst() else { usage() }
        switch command {
        case "publish":
            guard let name = arguments.popFirst(), let portText = arguments.popFirst(), let port = UInt16(portText)
            else { usage() }
            var txt: [String: String] = [:]
            for pair in arguments {
                guard let equals = pair.firstIndex(of: "=") else { usage() }
                txt[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            await publish(name: name, port: port, txt: txt)
        case "browse":
            await browse(type: arguments.popFirst() ?? ServiceType.share)
        case "snapshot":
            guard let secondsText = arguments.popFirst(), let seconds = Double(secondsText) else { usage() }
            await snapshot(seconds: seconds, type: arguments.popFirst() ?? ServiceType.share)
        default:
            usage()
        }
    }

    static func publish(name: String, port: UInt16, txt: [String: String]) async {
        ProbeOutput.emit(ProbeLine(event: "starting", name: name))
        let publisher: ServicePublisher
        do {
            publisher = try ServicePublisher.publish(name: name, port: port, txt: txt)
        } catch {
            ProbeOutput.emit(ProbeLine(event: "error", message: error.description))
            exit(65)
        }
        closeOnStandardInputEOF { publisher.close() }
        for await event in publisher.events {
            switch event {
            case .published(let name): ProbeOutput.emit(ProbeLine(event: "published", name: name))
            case .renamed(let from, let to): ProbeOutput.emit(ProbeLine(event: "renamed", name: to, from: from))
            case .daemonUnavailable(let reason):
                ProbeOutput.emit(ProbeLine(event: "daemonUnavailable", message: reason.description))
            case .daemonReturned: ProbeOutput.emit(ProbeLine(event: "daemonReturned"))
            case .failed(let error): ProbeOutput.emit(ProbeLine(event: "failed", message: error.description))
            }
        }
        ProbeOutput.emit(ProbeLine(event: "closed"))
        exit(0)
    }

    static func browse(type: String) async {
        let browser: ServiceBrowser
        do {
            browser = try ServiceBrowser(type: type)
        } catch {
            ProbeOutput.emit(
                ProbeLine(event: "error", message: error.description, unavailable: error.isDaemonUnavailable))
            exit(error.isDaemonUnavailable ? 69 : 1)
        }
        ProbeOutput.emit(ProbeLine(event: "browsing"))
        closeOnStandardInputEOF { browser.close() }
        for await event in browser.events {
            switch event {
            case .appeared(let service): ProbeOutput.emit(ProbeLine(event: "appeared", service: service))
            case .updated(let service): ProbeOutput.emit(ProbeLine(event: "updated", service: service))
            case .disappeared(let name): ProbeOutput.emit(ProbeLine(event: "disappeared", name: name))
            case .allForNow: ProbeOutput.emit(ProbeLine(event: "allForNow"))
            case .failure(let error): ProbeOutput.emit(ProbeLine(event: "failure", message: error.description))
            }
        }
        ProbeOutput.emit(ProbeLine(event: "closed"))
        exit(0)
    }

    static func snapshot(seconds: Double, type: String) async {
        do {
            let services = try await ServiceBrowser.snapshot(type: type, timeout: .milliseconds(Int(seconds * 1000)))
            ProbeOutput.emit(ProbeLine(event: "snapshot", services: services))
            exit(0)
        } catch {
            ProbeOutput.emit(
                ProbeLine(event: "error", message: error.description, unavailable: error.isDaemonUnavailable))
            exit(error.isDaemonUnavailable ? 69 : 1)
        }
    }

    /// Reads stdin on a thread of its own until EOF, then runs `close`.
    static func closeOnStandardInputEOF(_ close: @escaping @Sendable () -> Void) {
        Thread.detachNewThread {
            while let chunk = try? FileHandle.standardInput.read(upToCount: 4096), !chunk.isEmpty {}
            close()
        }
    }

    static func usage() -> Never {
        FileHandle.standardError.write(
            Data(
                "usage: ShareDiscoveryProbe publish NAME PORT [K=V...] | browse [TYPE] | snapshot SECONDS [TYPE]\n".utf8
            ))
        exit(64)
    }
}
