import Foundation
import ShareLocalSend
import Testing

/// The rules of `share send --link`: the session token, the PIN, the routes, the JSON and the page.
@Suite struct LocalSendLinkSessionTests {
    let token = "Vq3mZ0c1kT8sYb2nQ4xW5e"
    let files = [
        LocalSendLinkFile(id: "f0", fileName: "Report.pdf", size: 1_400_000, fileType: "application/pdf", sha256: "ab" + String(repeating: "0", count: 62)),
        LocalSendLinkFile(id: "f2", fileName: "Photos/<b>x & \"y\".jpg", size: 12, fileType: "application/octet-stream", sha256: String(repeating: "1", count: 64)),
    ]
    let device = Array(#"{"alias":"desk","download":true,"fingerprint":"F","port":53317,"protocol":"http","version":"2.1"}"#.utf8)

    func session(pin: String? = nil) -> LocalSendLinkSession {
        LocalSendLinkSession(token: token, files: files, alias: "desk <home>", device: device, pin: pin)
    }

    @Test func theRightSessionGetsThePageTheJSONAndEachFile() throws {
        var link = session()
        let now = ContinuousClock.now
        guard case .page(200, let html) = link.answer(method: "GET", target: "/?session=\(token)", from: "a", now: now) else {
            Issue.record("no page")
            return
        }
        #expect(html.contains("/api/localsend/v2/download?sessionId=\(token)&amp;fileId=f0"))
        #expect(html.contains("Report.pdf") && html.contains("1.4 MB"))
        guard case .json(let bytes) = link.answer(
            method: "POST", target: "/api/localsend/v2/prepare-download?sessionId=\(token)", from: "a", now: now)
        else {
            Issue.record("no JSON")
            return
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["sessionId"] as? String == token)
        #expect((object["info"] as? [String: Any])?["alias"] as? String == "desk")
        let described = try #require(object["files"] as? [String: [String: Any]])
        #expect(Set(described.keys) == ["f0", "f2"])
        #expect(described["f2"]?["fileName"] as? String == "Photos/<b>x & \"y\".jpg")
        #expect(described["f0"]?["size"] as? Int == 1_400_000)
        #expect(described["f0"]?["sha256"] as? String == files[0].sha256)
        #expect(described["f0"]?["fileType"] as? String == "application/pdf")
        #expect(described["f0"]?.keys.contains("preview") == true)
        let answer = link.answer(method: "GET", target: "/api/localsend/v2/download?sessionId=\(token)&fileId=f2", from: "b", now: now)
        #expect(answer == .file(files[1]))
    }

    @Test func aWrongOrMissingSessionIs403AndAnythingElse404() {
        var link = session()
        let now = ContinuousClock.now
        for target in ["/", "/?session=\(token)x", "/?session=\(token.dropLast())", "/?sessionId=nope"] {
            #expect(link.answer(method: "GET", target: target, from: "a", now: now).status == 403, "\(target)")
        }
        #expect(link.answer(method: "POST", target: "/api/localsend/v2/prepare-download", from: "a", now: now).status == 403)
        #expect(link.answer(method: "GET", target: "/api/localsend/v2/download?sessionId=x&fileId=f0", from: "a", now: now).status == 403)
        #expect(link.answer(method: "GET", target: "/api/localsend/v2/download?sessionId=\(token)&fileId=f9", from: "a", now: now).status == 404)
        #expect(link.answer(method: "GET", target: "/favicon.ico", from: "a", now: now).status == 404)
        #expect(link.answer(method: "DELETE", target: "/?session=\(token)", from: "a", now: now).status == 404)
        #expect(link.answer(method: "POST", target: "/api/localsend/v2/upload?sessionId=\(token)", from: "a", now: now).status == 404)
    }

    @Test func aPinIsAskedForThenOpensTheFilesToThatAddressAndThreeWrongOnesLockItOut() {
        var link = session(pin: "4321")
        let now = ContinuousClock.now
        guard case .page(401, let form) = link.answer(method: "GET", target: "/?session=\(token)", from: "a", now: now) else {
            Issue.record("no PIN form")
            return
        }
        #expect(form.contains("name=\"pin\"") && form.contains("value=\"\(token)\"") && !form.contains("Report.pdf"))
        // A missing PIN is no guess; a file needs the PIN too.
        let download = "/api/localsend/v2/download?sessionId=\(token)&fileId=f0"
        #expect(link.answer(method: "GET", target: download, from: "a", now: now).status == 401)
        guard case .page(401, let wrong) = link.answer(method: "GET", target: "/?session=\(token)&pin=1", from: "a", now: now)
        else {
            Issue.record("no second form")
            return
        }
        #expect(wrong.contains("wrong"))
        #expect(link.answer(method: "POST", target: "/api/localsend/v2/prepare-download?sessionId=\(token)&pin=2", from: "a", now: now).status == 401)
        #expect(link.answer(method: "GET", target: "/?session=\(token)&pin=3", from: "a", now: now).status == 429)
        #expect(link.answer(method: "GET", target: "/?session=\(token)&pin=4321", from: "a", now: now + .seconds(5)).status == 429)
        // Another address gives the right PIN, then downloads with plain links.
        #expect(link.answer(method: "GET", target: "/?session=\(token)&pin=4321", from: "b", now: now).status == 200)
        #expect(link.answer(method: "GET", target: download, from: "b", now: now) == .file(files[0]))
        #expect(link.answer(method: "GET", target: download, from: "c", now: now).status == 401)
        // A LocalSend app: prepare-download with the PIN, then downloads.
        #expect(link.answer(method: "POST", target: "/api/localsend/v2/prepare-download?sessionId=\(token)&pin=4321", from: "d", now: now).status == 200)
        #expect(link.answer(method: "GET", target: download, from: "d", now: now).status == 200)
    }

    @Test func itIsCompleteWhenEveryFileWasDownloadedWholeOnce() {
        var link = session()
        #expect(!link.isComplete)
        link.downloadedWhole("f2")
        link.downloadedWhole("f2")
        link.downloadedWhole("f7")
        #expect(!link.isComplete && link.downloaded == ["f2"])
        link.downloadedWhole("f0")
        #expect(link.isComplete)
    }

    @Test func formValuesArePercentDecodedAndAPlusIsASpace() {
        var link = session(pin: "12 34")
        let answer = link.answer(method: "GET", target: "/?session=\(token)&pin=12+34", from: "a", now: .now)
        #expect(answer.status == 200)
        var other = session(pin: "1&2")
        #expect(other.answer(method: "GET", target: "/?pin=1%262&session=\(token)", from: "a", now: .now).status == 200)
    }

    @Test func everyNameOnThePageIsEscaped() {
        let html = LocalSendLinkPage.files(files, session: token, alias: "desk <home>")
        #expect(!html.contains("<b>") && !html.contains("desk <home>"))
        #expect(html.contains(">Photos/&lt;b&gt;x &amp; &quot;y&quot;.jpg</a>"))
        #expect(html.contains("download=\"&lt;b&gt;x &amp; &quot;y&quot;.jpg\""), "a browser saves the last part of the name")
        #expect(html.contains("desk &lt;home&gt;"))
        #expect(!html.contains("<script") && !html.contains("http://") && !html.contains("https://"))
        #expect(LocalSendLinkPage.escape("a'b") == "a&#39;b")
        let form = LocalSendLinkPage.pinForm(session: "\"><script>", alias: "x", wrong: false)
        #expect(!form.contains("<script>"))
    }
}
