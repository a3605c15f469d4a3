import Foundation
import ShareLocalSend
import Testing

/// `prepare-upload` requests as LocalSend senders make them, and what a hostile one gets.
@Suite struct LocalSendUploadRequestTests {
    let info = #"{"alias":"Pixel","version":"2.1","deviceModel":"Google","deviceType":"mobile","fingerprint":"AB","port":53317,"protocol":"https"}"#

    func request(_ files: String, limits: LocalSendLimits.Upload = .init()) throws -> LocalSendUploadRequest {
        try LocalSendUploadRequest(json: Array(#"{"info":\#(info),"files":{\#(files)}}"#.utf8), limits: limits)
    }

    @Test func filesOfAPhoneAndOfAFolderAreRead() throws {
        let digest = String(repeating: "ab", count: 32)
        let offer = try request(
            #""f1":{"id":"f1","fileName":"IMG_1.jpg","size":2048,"fileType":"image/jpeg","sha256":"\#(digest)","preview":null},"#
                + #""f2":{"id":"f2","fileName":"Trip/day 1.txt","size":0,"fileType":"text/plain","sha256":null}"#)
        #expect(offer.sender.alias == "Pixel")
        #expect(offer.files.map(\.fileName) == ["IMG_1.jpg", "Trip/day 1.txt"])
        #expect(offer.files[0].sha256 == [UInt8](repeating: 0xAB, count: 32))
        #expect(offer.files[1].sha256 == nil)
        #expect(offer.files[1].size == 0, "an empty file is a file")
        #expect(offer.totalBytes == 2048)
    }

    @Test func namesThatAreNotSafeRefuseTheRequestWithTheReason() {
        for name in ["../etc/passwd", "/etc/passwd", "a/../../b", "bad\u{7}name", "~/x", "...", "a\\b", ".share-x"] {
            #expect(throws: LocalSendMessageError.self, "\(name)") {
                try request(#""f":{"id":"f","fileName":"\#(name.replacingOccurrences(of: "\\", with: "\\\\"))","size":1}"#)
            }
        }
        #expect(throws: LocalSendMessageError.invalidField("fileName", "'a' is offered twice")) {
            try request(#""f":{"fileName":"a","size":1},"g":{"fileName":"a","size":2}"#)
        }
    }

    @Test func sizesAndCountsAreBoundedBeforeAnythingIsKept() {
        var limits = LocalSendLimits.Upload()
        limits.fileBytes = 100
        limits.totalBytes = 150
        limits.files = 2
        #expect(throws: LocalSendMessageError.invalidField("size", "'a' has 101 bytes, more than the 100 share takes")) {
            try request(#""f":{"fileName":"a","size":101}"#, limits: limits)
        }
        #expect(throws: LocalSendMessageError.invalidField("size", "the files hold more than the 150 bytes share takes at once")) {
            try request(#""f":{"fileName":"a","size":100},"g":{"fileName":"b","size":100}"#, limits: limits)
        }
        #expect(throws: LocalSendMessageError.invalidField("files", "3 files, more than the 2 share takes at once")) {
            try request(#""f":{"fileName":"a","size":1},"g":{"fileName":"b","size":1},"h":{"fileName":"c","size":1}"#, limits: limits)
        }
        for size in ["-1", "1.5", "\"12\"", "true", "1e30"] {
            #expect(throws: LocalSendMessageError.self, "\(size)") { try request(#""f":{"fileName":"a","size":\#(size)}"#) }
        }
        limits = LocalSendLimits.Upload()
        limits.requestBytes = 64
        #expect(throws: LocalSendMessageError.self) { try request(#""f":{"fileName":"a","size":1}"#, limits: limits) }
    }

    @Test func aRefusalShowsWhatThePeerSentEscaped() {
        // Found by the fuzzer: an id with a control character was echoed raw.
        #expect(throws: LocalSendMessageError.invalidField("files", "file 'f\\u{7F}' says its id is 'f2'")) {
            try request(#""f\#u{7F}":{"id":"f2","fileName":"a","size":1}"#)
        }
    }

    @Test func aMalformedDigestOrIdIsRefused() {
        #expect(throws: LocalSendMessageError.self) { try request(#""f":{"fileName":"a","size":1,"sha256":"abc"}"#) }
        #expect(throws: LocalSendMessageError.self) { try request(#""f":{"id":"g","fileName":"a","size":1}"#) }
        #expect(throws: LocalSendMessageError.missingField("info")) {
            try LocalSendUploadRequest(json: Array(#"{"files":{}}"#.utf8))
        }
    }
}
