import ShareDocuments
import Testing

@testable import ShareLocalSend

/// A LocalSend sender's files as share's own offer: folders made from the names, each file's id and
/// SHA-256 kept beside its place in the offer.
@Suite("LocalSend offers")
struct LocalSendOfferTests {
    let info = #"{"alias":"Phone","version":"2.1","fingerprint":"F","port":53317,"protocol":"https"}"#

    func offer(_ files: String) throws -> LocalSendOffer {
        let request = try LocalSendUploadRequest(json: Array(#"{"info":\#(info),"files":{\#(files)}}"#.utf8))
        return try LocalSendOffer(request, modificationSeconds: 1_700_000_000)
    }

    @Test("names with folders become folder items holding their files; ids and digests follow the files")
    func folders() throws {
        let digest = String(repeating: "ab", count: 32)
        let made = try offer(
            #""z":{"id":"z","fileName":"Trip/day 2.jpg","size":5},"a":{"id":"a","fileName":"Trip/day 1.jpg","size":3,"sha256":"\#(digest)"},"#
                + #""n":{"id":"n","fileName":"notes.txt","size":0}"#)
        #expect(made.manifest.entries.map(\.path) == ["Trip", "Trip/day 1.jpg", "Trip/day 2.jpg", "notes.txt"])
        #expect(made.manifest.items.map(\.name) == ["Trip", "notes.txt"])
        #expect(made.manifest.items.first?.isBundle == true)
        #expect(made.fileIDs == ["a", "z", "n"])
        #expect(made.fileIndices == ["a": 0, "z": 1, "n": 2])
        #expect(made.digests[0] == Hex.decode(digest))
        #expect(made.digests[1] == nil)
        #expect(made.manifest.totalBytes == 8)
    }

    @Test("a name offered both as a file and as a folder is refused with the reason")
    func clash() throws {
        #expect(throws: LocalSendMessageError.invalidField("fileName", "'a/b.txt' is offered as a file and as a folder")) {
            try offer(#""1":{"id":"1","fileName":"a/b.txt","size":1},"2":{"id":"2","fileName":"a","size":1}"#)
        }
    }
}
