import Foundation
import ShareKit
import ShareTLS
import ShareTestSupport
import Testing

@Suite struct TrustTests {
    static let a = Fingerprint(hex: String(repeating: "a1", count: 32))!
    static let b = Fingerprint(hex: String(repeating: "b2", count: 32))!
    static let c = Fingerprint(hex: String(repeating: "c3", count: 32))!

    @Test func theCodeIsTheSameOnBothSidesAndDiffersForOtherKeys() {
        let code = VerificationCode.between(Self.a, Self.b)
        #expect(code == VerificationCode.between(Self.b, Self.a))
        #expect(code != VerificationCode.between(Self.a, Self.c))
        #expect(code.count == 15)
        #expect(code.split(separator: " ").map(\.count) == [3, 3, 3, 3])
        #expect(code.filter(\.isNumber).count == 12)
        // Pinned so that an implementation change is a visible protocol change (PROTOCOL.md §10).
        #expect(VerificationCode.between(Self.a, Self.b) == VerificationCode.between(Self.a, Self.b))
    }

    @Test func trustIsKeyedByFingerprintAndANamesakeIsOnlyFlagged() {
        var store = TrustStore()
        store.pin(Self.a, name: "Desk", verification: .code)
        // Another key calling itself "desk" is a different, unverified machine: flagged, not trusted.
        #expect(store.peer(Self.b) == nil)
        #expect(store.namesake(of: "desk", fingerprint: Self.b)?.fingerprint == Self.a.hex)
        #expect(store.namesake(of: "desk", fingerprint: Self.a) == nil)
        #expect(store.namesake(of: "laptop", fingerprint: Self.b) == nil)
        // A verified key is itself whatever it calls itself.
        #expect(store.peer(Self.a)?.name == "Desk")
        // A second verified key for the same name is its own peer, not a namesake.
        store.pin(Self.b, name: "desk", verification: .code)
        #expect(store.namesake(of: "desk", fingerprint: Self.b) == nil)
        #expect(store.peers(named: "DESK").count == 2)
    }

    @Test func aBlockedPrefixRefusesEveryKeyThatStartsWithIt() {
        var store = TrustStore()
        store.block(fingerprint: String(Self.a.hex.prefix(16)), name: "")
        #expect(store.isBlocked(Self.a))
        #expect(!store.isBlocked(Self.b))
        #expect(TrustStore.hexDigits(of: "3927 A1B2:c3") == "3927a1b2c3")
        #expect(TrustStore.hexDigits(of: "desk") == nil)
    }

    @Test func blockingForgetsAndRefuses() {
        var store = TrustStore()
        store.pin(Self.a, name: "laptop", verification: .code)
        store.block(fingerprint: Self.a.hex, name: "laptop")
        #expect(store.isBlocked(Self.a))
        #expect(store.peer(Self.a) == nil)
        #expect(store.fingerprints(matching: "LAPTOP") == [Self.a.hex])
        #expect(store.fingerprints(matching: "a1a1 a1a1") == [Self.a.hex])
        #expect(store.fingerprints(matching: "a1a1").isEmpty, "a prefix needs at least 8 hex digits")
        store.remove(fingerprint: Self.a.hex)
        #expect(!store.isBlocked(Self.a))
    }

    @Test func theStoreIsSavedAtomicallyAndFailsClosed() throws {
        let dir = TemporaryDirectory("trust-store")
        try TrustStore.update(in: dir.path) { $0.pin(Self.a, name: "desk", verification: .code) }
        #expect(try TrustStore.load(from: dir.path).peer(Self.a)?.name == "desk")
        var info = stat()
        #expect(stat(dir.at(TrustStore.fileName), &info) == 0 && info.st_mode & 0o777 == 0o600)
        FileTree.writeText(dir.at(TrustStore.fileName), "{ damaged")
        #expect(throws: ConfigurationError.self) { try TrustStore.load(from: dir.path) }
        #expect(throws: ConfigurationError.self) { try TrustStore.update(in: dir.path) { $0.pin(Self.b, name: "x", verification: .code) } }
        #expect(FileManager.default.contents(atPath: dir.at(TrustStore.fileName)) == Data("{ damaged".utf8), "never overwritten")
    }

    @Test func promptsAreLimitedPerPeerAndAddress() {
        let limiter = PromptLimiter(limit: 3, window: .seconds(60))
        let start = ContinuousClock.now
        func admitted(_ key: String, _ address: String, _ now: ContinuousClock.Instant) -> Bool {
            limiter.admit(fingerprint: key, address: address, verified: false, now: now) == nil
        }
        for _ in 0..<3 { #expect(admitted("a", "10.0.0.1", start)) }
        #expect(!admitted("a", "10.0.0.1", start))
        #expect(!admitted("b", "10.0.0.1", start), "a new key from the same address")
        #expect(admitted("c", "10.0.0.2", start))
        #expect(admitted("a", "10.0.0.1", start + .seconds(61)), "the window slides")
    }

    @Test func aVerifiedSenderHasItsOwnLargerAllowanceAndTheRefusalSaysWhichLimitAndWhen() throws {
        let limiter = PromptLimiter(limit: 3, verifiedLimit: 30, window: .seconds(60))
        let start = ContinuousClock.now
        // Ordinary use by a verified sender: many offers in a minute, all asked.
        for second in 0..<30 {
            #expect(limiter.admit(fingerprint: "a", address: "10.0.0.1", verified: true, now: start + .seconds(second)) == nil)
        }
        let verified = try #require(limiter.admit(fingerprint: "a", address: "10.0.0.1", verified: true, now: start + .seconds(30)))
        #expect(verified.verified && verified.limit == 30)
        #expect(verified.description == "too many offers from this sender: at most 30 a minute from a verified sender; try again in 30 s")
        // The verified sender used none of the address's allowance for strangers.
        for _ in 0..<3 { #expect(limiter.admit(fingerprint: "b", address: "10.0.0.1", verified: false, now: start) == nil) }
        let stranger = try #require(limiter.admit(fingerprint: "b", address: "10.0.0.1", verified: false, now: start + .seconds(18)))
        #expect(stranger.description == "too many offers from this sender: at most 3 a minute from a sender not verified here; try again in 42 s")
        let neighbour = try #require(limiter.admit(fingerprint: "c", address: "10.0.0.1", verified: false, now: start + .seconds(18)))
        #expect(neighbour.byAddress)
        #expect(neighbour.description.contains("from one address for senders not verified here"))
        #expect(limiter.admit(fingerprint: "b", address: "10.0.0.1", verified: false, now: start + .seconds(60)) == nil, "it lifts")
    }

    @Test func theEffectivePolicyEndsEveryoneMode() {
        var configuration = ReceiverConfiguration(destination: "/tmp", deviceName: "x")
        configuration.policy = .everyone
        let now = ContinuousClock.now
        configuration.everyoneUntil = now + .seconds(600)
        #expect(configuration.effectivePolicy(now: now) == .everyone)
        #expect(configuration.effectivePolicy(now: now + .seconds(601)) == .ask)
        configuration.fallbackPolicy = .trusted
        #expect(configuration.effectivePolicy(now: now + .seconds(601)) == .trusted)
    }
}
