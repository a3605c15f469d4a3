import Foundation
import ShareTestSupport
import Testing

/// `share send --link` on one simulated host, and a browser (headless Chromium) on another: the
/// address share prints is the one the other machine opens. Needs Chromium; fails instead of
/// skipping under SHARE_REQUIRE_NETNS=1.
@Suite(
    .serialized,
    .enabled(if: SimulatedLAN.networkShouldRun && (HeadlessChromium.isInstalled || SimulatedLAN.isRequired), SimulatedLAN.networkSkipNote))
struct LinkBetweenHostsTests {
    static let prefix = "shlink"

    @Test func aPhoneOnTheNetworkOpensThePrintedAddressAndDownloadsTheFileIntact() async throws {
        try #require(HeadlessChromium.isInstalled, "chromium is missing: run 'make deps' (apt-get install chromium)")
        let dir = TemporaryDirectory("link-lan")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: Self.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        FileTree.writeFile(dir.at("photo.jpg"), size: 2_000_000, seed: 9)
        let share = try lan.share(on: "desk", as: user, ["send", dir.at("photo.jpg"), "--link", "--link-timeout", "2m", "--json"])
        defer { share.terminate() }
        let (_, line) = try await share.waitForLine("the link's address", within: .seconds(30)) { $0.contains("\"serving\"") }
        let url = try #require(jsonObject(line)?["url"] as? String)
        #expect(url.hasPrefix("http://\(try lan.ipv4("desk")):53317/?session="), "the LAN address, on LocalSend's port: \(url)")

        // A second link on the same host finds LocalSend's port taken, takes another and says so.
        let second = try await lan.runShare(on: "desk", as: user, ["send", dir.at("photo.jpg"), "--link", "--link-timeout", "1s"])
        #expect(second.status == 1)
        #expect(
            second.stdout.contains("Port 53317 is taken (by a LocalSend app, or share receive --localsend?); serving on port "),
            "\(second.stdout)")

        let browser = HeadlessChromium(
            "phone", in: dir, launcher: [SimulatedLAN.script, "run", "phone"],
            environment: SimulatedLAN.environment(prefix: Self.prefix))
        let page = try browser.dom(url)
        let link = try #require(HeadlessChromium.links(in: page).first, "no link on the page: \(page)")
        let origin = String(url.prefix { $0 != "?" }.dropLast())
        let saved = try browser.download(origin + link, size: 2_000_000)
        #expect(FileTree.digest(saved) == FileTree.digest(dir.at("photo.jpg")))
        let status = await share.exitStatus(within: .seconds(20))
        #expect(status == 0, "\(share.transcript)")
        #expect(share.lines.last.flatMap { jsonObject($0) }?["outcome"] as? String == "downloaded")
    }
}
