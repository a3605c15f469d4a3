import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// share and an independent LocalSend peer (localsendd) find each other on a simulated LAN, by
/// LocalSend's own multicast discovery, with or without Avahi.
@Suite(.serialized, .enabled(if: SimulatedLAN.networkShouldRun, SimulatedLAN.networkSkipNote))
struct LocalSendDiscoveryTests {
    static let prefix = "shls"

    /// The LocalSend fingerprint share announces: upper-case hex SHA-256 of its LocalSend
    /// certificate's DER bytes, computed here with openssl.
    func shareLocalSendFingerprint(_ user: LANUser) throws -> String {
        let certificate = user.home + "/.config/share/localsend/identity.crt"
        let child = try Subprocess(
            executable: "/bin/sh",
            arguments: ["-c", "openssl x509 -in '\(certificate)' -outform der | openssl dgst -sha256 -r"],
            environment: ProcessInfo.processInfo.environment, stdinPipe: false)
        let output = String(decoding: child.readToEnd(), as: UTF8.self)
        _ = child.reap(block: true)
        return String(output.prefix { $0.isHexDigit }).uppercased()
    }

    @Test func shareListsALocalSendDeviceAndTheDeviceListsShare() async throws {
        let dir = TemporaryDirectory("localsend-discovery")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: Self.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        _ = try await lan.runShare(on: "desk", as: user, ["identity", "set-name", "ana-desk"])
        let phone = try LocalSendDaemon(on: "phone", of: lan, alias: "Ana's phone", in: dir)
        defer { phone.stop() }
        let phoneFingerprint = try await phone.fingerprint()
        #expect(phoneFingerprint.count == 64)

        let listed = try await lan.runShare(on: "desk", as: user, ["peers", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let entries = (try? JSONSerialization.jsonObject(with: Data(listed.stdout.utf8))) as? [[String: Any]] ?? []
        let device = try #require(entries.first { $0["protocol"] as? String == "localsend" }, "\(listed.stdout)")
        #expect(device["name"] as? String == "Ana's phone")
        #expect(device["deviceType"] as? String == "mobile")
        #expect(device["address"] as? String == (try lan.ipv4("phone")))
        #expect(device["port"] as? Int == 53317)
        #expect((device["localsendFingerprint"] as? String)?.uppercased() == phoneFingerprint)
        #expect(device["verified"] as? Bool == false, "a LocalSend device is never verified")
        #expect(entries.allSatisfy { $0["protocol"] as? String != "share" }, "no share receiver runs")

        // The table says what these are.
        let table = try await lan.runShare(on: "desk", as: user, ["peers"])
        #expect(table.stdout.contains("LocalSend devices (phones and other computers; not verified"), "\(table.stdout)")
        #expect(table.stdout.contains("Ana's phone  mobile"))
        #expect(table.stdout.contains("\(try lan.ipv4("phone")):53317  \(phoneFingerprint.prefix(16))"))

        // Completion offers it too (`share peers --names`).
        let names = try await lan.runShare(on: "desk", as: user, ["peers", "--names"])
        #expect(names.status == 0)
        #expect(names.stdout.split(separator: "\n").contains("Ana's phone"), "\(names.stdout)")

        // share announced itself: the LocalSend device lists it, under share's LocalSend fingerprint.
        let seen = try phone.devices()
        let desk = try #require(seen.first { $0["alias"] as? String == "ana-desk" }, "\(seen)")
        #expect(desk["ip"] as? String == (try lan.ipv4("desk")))
        #expect((desk["fingerprint"] as? String) == (try shareLocalSendFingerprint(user)))
        #expect((desk["fingerprint"] as? String)?.count == 64)
    }

    @Test func withoutAvahiTheLocalSendDevicesAreStillListed() async throws {
        let dir = TemporaryDirectory("localsend-no-avahi")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: Self.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        try lan.stopAvahi("desk")
        // Nothing to list and no Avahi: as before, a needed service is unavailable.
        let nothing = try await lan.runShare(on: "desk", as: user, ["peers"])
        #expect(nothing.status == 69, "\(nothing.stderr)")

        let phone = try LocalSendDaemon(on: "phone", of: lan, alias: "Ana's phone", in: dir)
        defer { phone.stop() }
        _ = try await phone.fingerprint()
        let listed = try await lan.runShare(on: "desk", as: user, ["peers"])
        #expect(listed.status == 0, "LocalSend devices were listed: \(listed.stderr)")
        #expect(listed.stderr.contains("Warning: share receivers (.local) could not be looked up: "), "\(listed.stderr)")
        #expect(listed.stdout.contains("Ana's phone"))
    }
}

extension LocalSendDiscoveryTests {
    @Test func aShareThatOnlyLooksIsNotListedByAnother() async throws {
        let dir = TemporaryDirectory("localsend-looking")
        let lan = try SimulatedLAN(hosts: ["desk", "laptop"], prefix: Self.prefix)
        defer { lan.down() }
        let ana = LANUser("ana", in: dir)
        let ben = LANUser("ben", in: dir)
        // Both look at once, each for three seconds: each hears the other's announcement.
        async let first = lan.runShare(on: "desk", as: ana, ["peers", "--json", "--wait", "3"])
        async let second = lan.runShare(on: "laptop", as: ben, ["peers", "--json", "--wait", "3"])
        for listed in try await [first, second] {
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(!listed.stdout.contains("\"localsend\""), "a share only looking is no device: \(listed.stdout)")
        }
    }
}

extension LocalSendDiscoveryTests {
    @Test func aScanFindsADeviceMulticastDoesNotReachOnlyWhenAsked() async throws {
        let dir = TemporaryDirectory("localsend-scan")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: Self.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        // The phone's LocalSend cannot use multicast (no route for it): it is found only by asking it.
        let unroute = try lan.run(on: "phone", "/usr/sbin/ip", ["route", "del", "224.0.0.0/4"])
        #expect(await unroute.exitStatus(within: .seconds(10)) == 0)
        let phone = try LocalSendDaemon(on: "phone", of: lan, alias: "Quiet phone", in: dir)
        defer { phone.stop() }
        let fingerprint = try await phone.fingerprint()

        let plain = try await lan.runShare(on: "desk", as: user, ["peers", "--json"])
        #expect(!plain.stdout.contains("Quiet phone"), "no scan unless asked: \(plain.stdout)")
        let scanned = try await lan.runShare(on: "desk", as: user, ["peers", "--scan", "--json"], timeout: .seconds(60))
        #expect(scanned.status == 0, "\(scanned.stderr)")
        let entries = (try? JSONSerialization.jsonObject(with: Data(scanned.stdout.utf8))) as? [[String: Any]] ?? []
        let device = try #require(entries.first { $0["name"] as? String == "Quiet phone" }, "\(scanned.stdout)")
        #expect(device["address"] as? String == (try lan.ipv4("phone")))
        #expect((device["localsendFingerprint"] as? String)?.uppercased() == fingerprint, "the certificate's, as proven")
    }
}

extension LocalSendDiscoveryTests {
    @Test func watchShowsADeviceComingAndGoing() async throws {
        let dir = TemporaryDirectory("localsend-watch")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: Self.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        // A device not heard from for 3 s is gone (75 s otherwise).
        let watch = try lan.run(
            on: "desk", try #require(SimulatedLAN.share), ["peers", "--watch", "--json"],
            environment: user.environment.merging(["SHARE_LOCALSEND_FORGET": "3"]) { $1 }, label: "share peers --watch",
            separateStandardError: true)
        defer { watch.terminate() }
        let phone = try LocalSendDaemon(on: "phone", of: lan, alias: "Ana's phone", in: dir)
        _ = try await phone.fingerprint()
        let (index, appeared) = try await watch.waitForEvent("appeared", within: .seconds(15)) { event in
            (event["peer"] as? [String: Any])?["protocol"] as? String == "localsend"
        }
        #expect((appeared["peer"] as? [String: Any])?["name"] as? String == "Ana's phone")
        await phone.stopAndWait()
        let (_, gone) = try await watch.waitForEvent("disappeared", after: index, within: .seconds(15))
        #expect(gone["name"] as? String == "Ana's phone")
    }
}
