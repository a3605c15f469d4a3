import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `share send FILE... --link`: files served to a browser (headless Chromium) over plain HTTP, on
/// this machine's own addresses. Without Chromium or curl these tests are skipped, and fail under
/// SHARE_REQUIRE_NETNS=1 (`make deps` installs both).
@Suite(.enabled(if: HeadlessChromium.isInstalled && HeadlessChromium.curlIsInstalled || SimulatedLAN.isRequired))
struct LinkSharingTests {
    static let curl = HeadlessChromium.curl

    init() throws {
        try #require(HeadlessChromium.isInstalled, "chromium is missing: run 'make deps' (apt-get install chromium)")
        try #require(FileManager.default.isExecutableFile(atPath: Self.curl), "curl is missing: run 'make deps'")
    }

    /// Starts `share send ARGUMENTS --link --link-port 0` and returns it with the first address it printed.
    func startLink(_ machine: TestMachine, _ arguments: [String]) throws -> (RunningShare, String) {
        let share = machine.start(["send"] + arguments + ["--link", "--link-port", "0"])
        guard share.waitForOutput(containing: "?session=", timeout: .seconds(30)) else {
            let result = share.wait(timeout: .seconds(1))
            throw HarnessError(description: "share printed no address: \(result.stdout) \(result.stderr)")
        }
        let text = share.stdout
        let url = try #require(
            text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\"" }).first { $0.hasPrefix("http://") })
        return (share, String(url))
    }

    /// `curl ARGUMENTS URL`: the status and the body.
    func curl(_ arguments: [String]) throws -> (status: Int, body: String) {
        let process = try Subprocess(
            executable: Self.curl, arguments: ["-s", "-m", "20", "-w", "\n%{http_code}"] + arguments, environment: [:],
            stdinPipe: false, separateStandardError: true)
        let output = String(decoding: process.readToEnd(), as: UTF8.self)
        process.reap(block: true)
        let status = Int(output.split(separator: "\n").last ?? "") ?? 0
        return (status, String(output.dropLast(String(status).count + 1)))
    }

    func contents(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path) ?? Data()) }

    @Test func aBrowserDownloadsEveryFileIntactThroughThePageAndShareExitsZero() throws {
        let dir = TemporaryDirectory("link-browser")
        let alice = TestMachine("alice", in: dir)
        // (A type browsers hold as possibly dangerous, `.bin`, waits for the user's "Keep" instead.)
        FileTree.writeFile(dir.at("Holiday.jpg"), size: 3_000_000, seed: 7)
        FileTree.makeFolder(dir.at("Notes"))
        FileTree.writeText(dir.at("Notes/Café <i>x & y.txt"), "a name a page must escape\n")
        let (share, url) = try startLink(alice, [dir.at("Holiday.jpg"), dir.at("Notes"), "--link-timeout", "2m"])

        let browser = HeadlessChromium("phone", in: dir)
        let page = try browser.dom(url)
        #expect(page.contains("Files from alice"))
        #expect(page.contains("Notes/Café &lt;i&gt;x &amp; y.txt"), "the name is text, not markup: \(page)")
        #expect(!page.contains("<i>"))
        let links = HeadlessChromium.links(in: page)
        #expect(links.count == 2)
        let origin = String(url.prefix { $0 != "?" }.dropLast())
        var saved: [String] = []
        for (link, size) in zip(links, [3_000_000, 26]) {
            saved.append(try browser.download(origin + link, size: size))
        }
        let result = share.wait(timeout: .seconds(20))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("Every file was downloaded; stopped serving."))
        #expect(contents(saved[0]) == contents(dir.at("Holiday.jpg")))
        #expect((saved[0] as NSString).lastPathComponent == "Holiday.jpg")
        #expect(contents(saved[1]) == contents(dir.at("Notes/Café <i>x & y.txt")))
        #expect((saved[1] as NSString).lastPathComponent.hasPrefix("Café"), "the name comes from Content-Disposition")
    }

    @Test func aWrongSessionIs403APinIsAskedForAndTheThirdWrongOneIs429() throws {
        let dir = TemporaryDirectory("link-pin")
        let alice = TestMachine("alice", in: dir)
        FileTree.writeFile(dir.at("Scan.jpg"), size: 200_000, seed: 3)
        let (share, url) = try startLink(alice, [dir.at("Scan.jpg"), "--pin", "4321", "--link-timeout", "2m"])
        let port = try #require(url.split(separator: ":").last?.split(separator: "/").first)
        let token = String(try #require(url.components(separatedBy: "session=").last))
        // Each address on loopback is its own client: guesses from one never lock out another.
        func page(_ query: String, from source: String) throws -> (status: Int, body: String) {
            try curl(["--interface", source, "http://127.0.0.1:\(port)/?\(query)"])
        }
        let wrong = token.dropLast() + (token.hasSuffix("A") ? "B" : "A")
        #expect(try page("session=\(wrong)", from: "127.0.0.2").status == 403)
        #expect(try page("", from: "127.0.0.2").status == 403)
        #expect(try curl(["http://127.0.0.1:\(port)/api/localsend/v2/download?sessionId=nope&fileId=f0"]).status == 403)
        let form = try page("session=\(token)", from: "127.0.0.2")
        #expect(form.status == 401 && form.body.contains("name=\"pin\"") && !form.body.contains("Scan.jpg"))
        #expect(try page("session=\(token)&pin=1111", from: "127.0.0.2").status == 401)
        #expect(try page("session=\(token)&pin=2222", from: "127.0.0.2").status == 401)
        #expect(try page("session=\(token)&pin=3333", from: "127.0.0.2").status == 429)
        #expect(try page("session=\(token)&pin=4321", from: "127.0.0.2").status == 429, "even the right PIN waits")
        #expect(share.stderr.contains("127.0.0.2 gave 3 wrong PINs"))
        // A LocalSend app at another address: prepare-download with the PIN, then the file.
        let prepared = try curl([
            "--interface", "127.0.0.3", "-X", "POST",
            "http://127.0.0.1:\(port)/api/localsend/v2/prepare-download?sessionId=\(token)&pin=4321",
        ])
        #expect(prepared.status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(prepared.body.utf8)) as? [String: Any])
        #expect(object["sessionId"] as? String == token)
        let file = try #require((object["files"] as? [String: [String: Any]])?["f0"])
        #expect(file["fileName"] as? String == "Scan.jpg" && file["size"] as? Int == 200_000)
        #expect((file["sha256"] as? String)?.count == 64)
        #expect((object["info"] as? [String: Any])?["protocol"] as? String == "http")
        // A browser gives the PIN in the form, then downloads through the page's link.
        let browser = HeadlessChromium("phone", in: dir)
        let shown = try browser.dom(url + "&pin=4321")
        let link = try #require(HeadlessChromium.links(in: shown).first, "no link after the PIN: \(shown)")
        let origin = String(url.prefix { $0 != "?" }.dropLast())
        let saved = try browser.download(origin + link, size: 200_000)
        #expect(contents(saved) == contents(dir.at("Scan.jpg")))
        let result = share.wait(timeout: .seconds(20))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
    }

    @Test func theTimeoutEndsItWithExitOneAndSaysNobodyDownloaded() throws {
        let dir = TemporaryDirectory("link-timeout")
        let alice = TestMachine("alice", in: dir)
        FileTree.writeText(dir.at("a.txt"), "a\n")
        let result = alice.run(["send", dir.at("a.txt"), "--link", "--link-port", "0", "--link-timeout", "2s"], timeout: .seconds(30))
        #expect(result.status == 1)
        #expect(result.stderr.contains("Error: Nobody downloaded the file within 2s; stopped serving."), "\(result.stderr)")
        // The same with --json: one object to start with (the address), one at the end.
        let json = alice.run(
            ["send", dir.at("a.txt"), "--link", "--link-port", "0", "--link-timeout", "1s", "--json"], timeout: .seconds(30))
        #expect(json.status == 1)
        let lines = jsonLines(json.stdout)
        #expect(lines.count == 2)
        #expect(lines.first?["outcome"] as? String == "serving")
        #expect((lines.first?["url"] as? String)?.contains("?session=") == true)
        #expect(lines.last?["outcome"] as? String == "timedOut" && lines.last?["ok"] as? Bool == false)
        #expect(!json.stdout.contains("▀"), "no QR code in JSON")
    }

    @Test func ctrlCOnTheTerminalStopsItAtOnceAfterTheQRCode() throws {
        let dir = TemporaryDirectory("link-interrupt")
        let alice = TestMachine("alice", in: dir)
        FileTree.writeText(dir.at("a.txt"), "a\n")
        let terminal = alice.interactive(["send", dir.at("a.txt"), "--link", "--link-port", "0"])
        #expect(terminal.waitForOutput(containing: "Plain HTTP", timeout: .seconds(30)), "\(terminal.output)")
        #expect(terminal.output.contains("█"), "a QR code on the terminal: \(terminal.output)")
        // Served for 10 minutes otherwise: ending within the waits below is "at once".
        terminal.interrupt()
        #expect(
            terminal.waitForOutput(containing: "Stopped serving (interrupted): 0 of 1 file downloaded.", timeout: .seconds(10)),
            "\(terminal.output)")
        #expect(terminal.wait(timeout: .seconds(10)) == 130)
    }

    @Test func aFileThatChangesWhileServedIsCutShortAndEndsItWithAnError() throws {
        let dir = TemporaryDirectory("link-changed")
        let alice = TestMachine("alice", in: dir)
        FileTree.writeFile(dir.at("big.bin"), size: 3_000_000, seed: 1)
        let (share, url) = try startLink(alice, [dir.at("big.bin"), "--link-timeout", "2m"])
        // Same size, other bytes: only the SHA-256 can tell.
        FileTree.writeFile(dir.at("big.bin"), size: 3_000_000, seed: 2)
        let token = String(try #require(url.components(separatedBy: "session=").last))
        let origin = String(url.prefix { $0 != "?" }.dropLast())
        let download = try curl(["-o", dir.at("got.bin"), origin + "/api/localsend/v2/download?sessionId=\(token)&fileId=f0"])
        #expect(download.status == 200)
        #expect(contents(dir.at("got.bin")).count < 3_000_000, "never handed out whole")
        let result = share.wait(timeout: .seconds(20))
        #expect(result.status == 1)
        #expect(result.stderr.contains("changed while it was being served, so it was not handed out whole"), "\(result.stderr)")
    }

    @Test func aTakenPortGivesWayToAFreeOneAndShareSaysWhich() throws {
        let dir = TemporaryDirectory("link-port")
        let alice = TestMachine("alice", in: dir)
        FileTree.writeText(dir.at("a.txt"), "a\n")
        let taken = try LoopbackListener.listeningSocket()
        defer { close(taken.descriptor) }
        let result = alice.run(
            ["send", dir.at("a.txt"), "--link", "--link-port", "\(taken.port)", "--link-timeout", "1s"], timeout: .seconds(30))
        #expect(result.stdout.contains("Port \(taken.port) is taken; serving on port "), "\(result.stdout)")
        #expect(!result.stdout.contains(":\(taken.port)/?session="))
        let usage = alice.run(["send", dir.at("a.txt"), "--link", "--to", "desk"])
        #expect(usage.status == 64 && usage.stderr.contains("cannot be used with --to"))
    }
}
