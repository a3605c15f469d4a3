import ShareLocalSend
import Testing

/// LocalSend device descriptions as peers send them: what is read, what is refused.
@Suite struct LocalSendDeviceTests {
    @Test func anAnnouncementOfTheOfficialAppIsRead() throws {
        let message = """
            {"alias":"Nice Orange","version":"2.1","deviceModel":"Samsung","deviceType":"mobile",\
            "fingerprint":"247E5F7C0AB1","port":53317,"protocol":"https","download":true,"announce":true,"extra":[1]}
            """
        let device = try LocalSendDevice(json: Array(message.utf8))
        #expect(device.alias == "Nice Orange")
        #expect(device.deviceType == "mobile")
        #expect(device.deviceModel == "Samsung")
        #expect(device.port == 53317)
        #expect(device.https)
        #expect(device.download)
        #expect(device.announce == true)
        #expect(device.speaksVersion2)
    }

    @Test func missingOptionalFieldsTakeTheSpecDefaults() throws {
        let device = try LocalSendDevice(json: Array(#"{"alias":"a","fingerprint":"F","deviceType":"fridge"}"#.utf8))
        #expect(device.port == LocalSendDevice.defaultPort)
        #expect(device.https, "HTTPS unless it says http")
        #expect(device.deviceType == "fridge", "an unknown device type is tolerated")
        #expect(device.deviceModel == nil)
        #expect(device.announce == nil)
        #expect(!device.speaksVersion2, "no version: a v1 device")
    }

    @Test func whatIsNotADeviceIsRefusedWithTheReason() {
        let cases: [(String, LocalSendMessageError)] = [
            ("[1,2]", .notJSON),
            ("not json", .notJSON),
            (#"{"fingerprint":"F"}"#, .missingField("alias")),
            (#"{"alias":"a"}"#, .missingField("fingerprint")),
            (#"{"alias":"a","fingerprint":""}"#, .invalidField("fingerprint", "empty")),
            (#"{"alias":7,"fingerprint":"F"}"#, .invalidField("alias", "not a string")),
            (#"{"alias":"a","fingerprint":"F","port":70000}"#, .invalidField("port", "not a port")),
            (#"{"alias":"a","fingerprint":"F","port":"80"}"#, .invalidField("port", "not a number")),
            (#"{"alias":"a","fingerprint":"F","protocol":"ftp"}"#, .invalidField("protocol", "'ftp' is neither http nor https")),
        ]
        for (message, expected) in cases {
            #expect(throws: expected, "\(message)") { try LocalSendDevice(json: Array(message.utf8)) }
        }
    }

    @Test func lengthsAreBoundedBeforeParsing() {
        let long = String(repeating: "x", count: LocalSendLimits.aliasBytes + 1)
        #expect(throws: LocalSendMessageError.invalidField("alias", "longer than \(LocalSendLimits.aliasBytes) bytes")) {
            try LocalSendDevice(json: Array(#"{"alias":"\#(long)","fingerprint":"F"}"#.utf8))
        }
        let huge = [UInt8](repeating: 0x20, count: LocalSendLimits.messageBytes + 1)
        #expect(throws: LocalSendMessageError.tooLong(bytes: huge.count, limit: LocalSendLimits.messageBytes)) {
            try LocalSendDevice(json: huge)
        }
    }

    @Test func ourOwnDescriptionReadsBack() throws {
        let ours = LocalSendDevice(
            alias: "desk \"quoted\" ü", deviceModel: "Linux", deviceType: "desktop", fingerprint: "ABCD", port: 53318,
            https: true, announce: true)
        #expect(try LocalSendDevice(json: ours.json) == ours)
        var looking = ours
        looking.looksOnly = true
        #expect(String(decoding: looking.json, as: UTF8.self).contains(#""shareLooksOnly":true"#))
        #expect(try LocalSendDevice(json: looking.json).looksOnly)
        var answer = ours
        answer.announce = nil
        #expect(!String(decoding: answer.json, as: UTF8.self).contains("announce"), "announce only in multicast messages")
    }

    @Test func fingerprintsAreComparedIgnoringCase() {
        #expect(LocalSendDevice.sameFingerprint("247e5f7c", "247E5F7C"))
        #expect(!LocalSendDevice.sameFingerprint("247E5F7C", "247E5F7D"))
        #expect(!LocalSendDevice.sameFingerprint("247E5F7C", "247E5F7C0"))
    }
}
