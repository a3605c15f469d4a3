import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Imports that fail or hang, as a user meets them: the document stays in the inbox, the receiver
/// goes on, and `share inbox` retries or removes it.
@Suite(.serialized) struct InboxEndToEndTests {
    @Test func aFailedImportStaysInTheInboxUntilARetryAfterTheFix() async throws {
        let dir = TemporaryDirectory("inbox-retry")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        #expect(await bob.run(["types", "register", ExampleApps.manifest("BeerTracker/Info.plist")]).status == 0)
        #expect(
            await alice.runTool("beertracker", ["sample", dir.at("stout.btkr"), "--name", "Stout", "--rating", "5"])
                .status == 0)
        // Something is in the way of BeerTracker's store.
        FileTree.makeFolder(bob.dataHome)
        FileTree.writeText(bob.dataHome + "/BeerTracker", "not a folder")

        let receiver = bob.start([
            "receive", "--port", "0", "--dir", dir.at("downloads"), "--accept", "all", "--once", "--json",
        ])
        let port = try #require(await receiver.listeningPort())
        let sent = await alice.run(["send", dir.at("stout.btkr"), "--to", "127.0.0.1:\(port)"])
        let received = await receiver.wait(timeout: .seconds(30))

        #expect(sent.status == 0, "the transfer itself succeeded")
        #expect(
            sent.stdout.hasSuffix("  stout.btkr: kept in the receiver's inbox: BeerTracker could not import it\n"))
        #expect(received.status == 0)
        let item = try #require((jsonLines(received.stdout).last?["items"] as? [[String: Any]])?.first)
        #expect(item["outcome"] as? String == "keptInInbox")
        let id = try #require(item["inboxID"] as? String)
        let failure = "BeerTracker: cannot use its folder '\(bob.dataHome)/BeerTracker': it is not a folder"
        #expect(item["reason"] as? String == failure)
        #expect(item["path"] as? String == bob.inbox + "/\(id)/stout.btkr")

        let listed = await bob.run(["inbox", "list"])
        #expect(listed.stdout.hasPrefix("\(id)  failed     stout.btkr  from \"alice\", "))
        #expect(listed.stdout.contains("          com.example.beertracker.beer, 1 attempt\n"))
        #expect(listed.stdout.contains("          failed: \(failure)\n"))
        #expect(
            listed.stdout.hasSuffix("          retry with 'share inbox import \(id)', or 'share inbox remove \(id)'\n"))

        // Still broken: the retry fails, says so, and the document stays.
        let again = await bob.run(["inbox", "import", id])
        #expect(again.status == 1)
        #expect(
            again.stderr
                == "Error: \"stout.btkr\" stays in the inbox: \(failure); 'share inbox remove \(id)' deletes it\n")

        // Fixed: the retry imports it and the inbox copy goes.
        unlink(bob.dataHome + "/BeerTracker")
        let fixed = await bob.run(["inbox", "import", String(id.prefix(5))])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(fixed.stdout == "Imported \"stout.btkr\" with \"BeerTracker\".\n")
        #expect(await bob.runTool("beertracker", ["list"]).stdout == "Stout: 5/5\n")
        #expect(await bob.run(["inbox", "list"]).stdout == "The inbox is empty.\n")
        #expect(FileTree.allPaths(bob.inbox).isEmpty)
        let gone = await bob.run(["inbox", "import", id])
        #expect(gone.status == 1)
        #expect(gone.stderr == "Error: the inbox has no entry '\(id)'; 'share inbox list' shows what it holds\n")
    }

    @Test func aHangingImporterIsStoppedWhileTheReceiverKeepsWorking() async throws {
        let dir = TemporaryDirectory("inbox-hang")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let timeout = "<key>Timeout</key><integer>2</integer>"
        let manifest = scriptImporter("Sloth", ext: "nap", script: "#!/bin/sh\nexec sleep 600\n", keys: timeout, in: dir)
        let app = dir.at("Sloth")
        #expect(await bob.run(["types", "register", manifest]).status == 0)
        FileTree.writeText(dir.at("siesta.nap"), "zzz\n")
        FileTree.writeText(dir.at("urgent.txt"), "now\n")

        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("downloads"), "--accept", "all", "--json"])
        let port = try #require(await receiver.listeningPort())
        let slow = alice.start(["send", dir.at("siesta.nap"), "--to", "127.0.0.1:\(port)"])
        #expect(
            await waitUntil {
                FileTree.allPaths(bob.inbox).contains { !$0.hasPrefix(".") && $0.hasSuffix("/siesta.nap") }
            }, "committed to the inbox")
        // While the importer hangs, another transfer goes through at once.
        let quick = await alice.run(["send", dir.at("urgent.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(quick.status == 0)
        #expect(slow.process.isRunning, "done while the first import still hangs, not held up by it")
        #expect(FileManager.default.contents(atPath: dir.at("downloads/urgent.txt")) == Data("now\n".utf8))
        let sent = await slow.wait(timeout: .seconds(30))
        #expect(sent.status == 0)
        #expect(sent.stdout.hasSuffix("  siesta.nap: kept in the receiver's inbox: Sloth did not finish in time\n"))
        receiver.signal(SIGTERM)
        let received = await receiver.wait(timeout: .seconds(10))
        let item = try #require(
            jsonLines(received.stdout).compactMap { ($0["items"] as? [[String: Any]])?.first }.first {
                $0["name"] as? String == "siesta.nap"
            })
        #expect(item["reason"] as? String == "Sloth: its importer did not finish within 2 s and was stopped")
        let id = try #require(item["inboxID"] as? String)
        #expect(
            await bob.run(["inbox", "list"]).stdout.contains(
                "failed: Sloth: its importer did not finish within 2 s and was stopped\n"))

        // The app is fixed (its importer now copies the file into its store); the retry succeeds.
        FileTree.writeText(
            app + "/Info.plist",
            commandManifest(
                name: "Sloth", ext: "nap",
                arguments: "<string>/bin/cp</string><string>%f</string><string>\(dir.at("naps"))</string>",
                keys: timeout + "<key>Folder</key><string>\(dir.at("naps"))</string>"))
        let updated = await bob.run(["types", "register", app + "/Info.plist"])
        #expect(updated.stdout.hasPrefix("Updated \"Sloth\" (com.example.sloth).\n"))
        let retried = await bob.run(["inbox", "import", id])
        #expect(retried.stdout == "Imported \"siesta.nap\" with \"Sloth\".\n")
        #expect(FileManager.default.contents(atPath: dir.at("naps/siesta.nap")) == Data("zzz\n".utf8))
        #expect(FileTree.allPaths(bob.inbox).isEmpty)
    }

    /// A PDF that is also a ZIP archive, named `doc.jpg`: the JPEG application must not get it.
    @Test func aDocumentWhoseContentIsNotWhatItsNameSaysStaysInTheInbox() async throws {
        let dir = TemporaryDirectory("inbox-mismatch")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let photos = dir.at("photos")
        FileTree.makeFolder(dir.at("Photos"))
        FileTree.writeText(
            dir.at("Photos/Info.plist"),
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>CFBundleIdentifier</key><string>com.example.photos</string>
              <key>CFBundleName</key><string>Photos</string>
              <key>CFBundleDocumentTypes</key><array><dict>
                <key>LSItemContentTypes</key><array><string>public.jpeg</string></array>
                <key>LSHandlerRank</key><string>Owner</string>
              </dict></array>
              <key>ShareImporter</key><dict>
                <key>Kind</key><string>copy</string><key>Folder</key><string>\(photos)</string>
              </dict>
            </dict></plist>
            """)
        #expect(await bob.run(["types", "register", dir.at("Photos/Info.plist")]).status == 0)
        let polyglot = Data("%PDF-1.4\n1 0 obj\n<< >>\nendobj\n".utf8) + Data([0x50, 0x4B, 3, 4, 20, 0, 0, 0, 8, 0])
            + Data(repeating: 0x41, count: 200)
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0, 1]) + Data(repeating: 0, count: 200)
        FileManager.default.createFile(atPath: dir.at("doc.jpg"), contents: polyglot)
        FileManager.default.createFile(atPath: dir.at("photo.jpg"), contents: jpeg)
        let reason = "named .jpg but its content is a PDF document, so Photos did not get it"

        // As a person sees it: the receiver's own words, and the sender's receipt.
        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("downloads"), "--accept", "all", "--once"])
        #expect(await receiver.waitForOutput(containing: "on port"))
        let port = try #require(
            receiver.stdout.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { Int($0) })
        let sent = await alice.run(["send", dir.at("doc.jpg"), dir.at("photo.jpg"), "--to", "127.0.0.1:\(port)"])
        let received = await receiver.wait(timeout: .seconds(30))
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("  doc.jpg: kept in the receiver's inbox: named .jpg but its content is a PDF document\n"), "\(sent.stdout)")
        #expect(sent.stdout.contains("  photo.jpg: imported by \"Photos\"\n"), "\(sent.stdout)")
        #expect(received.status == 0)
        let id = try #require(
            try? FileManager.default.contentsOfDirectory(atPath: bob.inbox).first { !$0.hasPrefix(".") })
        #expect(
            received.stdout.contains(
                "  doc.jpg: kept in the inbox as \(id): \(reason) (it is at ~/.local/share/share/Inbox/\(id)/doc.jpg; "
                    + "'share inbox remove \(id)' deletes it)\n"), "\(received.stdout)")
        #expect(received.stdout.contains("  photo.jpg: imported by \"Photos\" into \(photos)/photo.jpg\n"), "\(received.stdout)")
        // The importer ran for the real JPEG only; the forged one is untouched in the inbox.
        #expect(FileTree.allPaths(photos) == ["photo.jpg"])
        #expect(FileManager.default.contents(atPath: bob.inbox + "/\(id)/doc.jpg") == polyglot)
        #expect(await bob.run(["inbox", "list"]).stdout.contains("          failed: \(reason)\n"))
        #expect(await bob.run(["history"]).stdout.contains(reason), "in the receiver's history")
        let historyText = await bob.run(["history", "--json"]).stdout
        let history = try #require(
            try? JSONSerialization.jsonObject(with: Data(historyText.utf8)) as? [[String: Any]])
        let recorded = try #require((history.first?["items"] as? [[String: Any]])?.first { $0["name"] as? String == "doc.jpg" })
        #expect(recorded["outcome"] as? String == "keptInInbox")
        #expect(recorded["reason"] as? String == reason)

        // As a script sees it: the item's reason and what the content is.
        let scripted = bob.start([
            "receive", "--port", "0", "--dir", dir.at("downloads"), "--accept", "all", "--once", "--json",
        ])
        let scriptedPort = try #require(await scripted.listeningPort())
        #expect(await alice.run(["send", dir.at("doc.jpg"), "--to", "127.0.0.1:\(scriptedPort)"]).status == 0)
        let events = await scripted.wait(timeout: .seconds(30))
        let item = try #require((jsonLines(events.stdout).last?["items"] as? [[String: Any]])?.first)
        #expect(item["outcome"] as? String == "keptInInbox")
        #expect(item["type"] as? String == "public.jpeg")
        #expect(item["reason"] as? String == reason)
        #expect(item["application"] is NSNull, "no application was given it")
        let mismatch = try #require(item["mismatch"] as? [String: Any])
        #expect(mismatch["claimedType"] as? String == "public.jpeg")
        #expect(mismatch["extension"] as? String == "jpg")
        #expect(mismatch["expected"] as? String == "JPEG")
        #expect(mismatch["found"] as? String == "PDF")
        #expect(FileTree.allPaths(photos) == ["photo.jpg"])
    }

    @Test func aRemovedEntryIsGoneAndUnknownIdentifiersAreClearErrors() async throws {
        let dir = TemporaryDirectory("inbox-remove")
        let bob = TestMachine("bob", in: dir)
        let missing = await bob.run(["inbox", "remove", "0123abcd"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: the inbox has no entry '0123abcd'; 'share inbox list' shows what it holds\n")
        let usage = await bob.run(["inbox", "import"])
        #expect(usage.status == 64)
        #expect(
            usage.stderr
                == "Error: Missing expected argument '<id>' (or --all)\nUsage: share inbox import [<id>] [<options>]\n  See 'share inbox import --help' for more information.\n"
        )
        #expect(await bob.run(["inbox", "list", "--json"]).stdout == "{\n  \"entries\": [],\n  \"partial\": [],\n  \"problems\": []\n}\n")
    }
}
