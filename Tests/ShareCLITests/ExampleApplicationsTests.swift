import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The example applications of Examples/, each registered with `share types register`, then fed by
/// a real `share send` to a real `share receive` on loopback, and checked in its own store.
@Suite(.serialized) struct ExampleApplicationsTests {
    @Test func scaryBugsUnpacksEachReceivedBugIntoItsOwnFolder() async throws {
        let dir = TemporaryDirectory("example-scarybugs")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let registered = await bob.run(["types", "register", ExampleApps.manifest("ScaryBugs/Info.plist")])
        #expect(registered.status == 0, "\(registered.stderr)")
        #expect(registered.stdout.hasPrefix("Registered \"ScaryBugs\" (com.example.scarybugs).\n"))
        #expect(registered.stderr == "", "the example manifest is clean")
        #expect(await alice.runTool("scarybugs", ["new", "Potato Bug", "--rating", "4", "--in", dir.path]).status == 0)
        let exported = await alice.runTool("scarybugs", ["export", dir.at("Potato Bug"), "--to", dir.path])
        #expect(exported.stdout == dir.at("Potato Bug.sbz") + "\n")

        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("downloads"), "--accept", "all", "--json"])
        let port = try #require(await receiver.listeningPort())
        let first = await alice.run(["send", dir.at("Potato Bug.sbz"), "--to", "127.0.0.1:\(port)"])
        let second = await alice.run(["send", dir.at("Potato Bug.sbz"), "--to", "127.0.0.1:\(port)"])
        receiver.signal(SIGTERM)
        let received = await receiver.wait(timeout: .seconds(10))

        #expect(first.status == 0 && second.status == 0)
        #expect(first.stdout.hasSuffix("  Potato Bug.sbz: imported by \"ScaryBugs\"\n"))
        let items = jsonLines(received.stdout).filter { $0["event"] as? String == "received" }.compactMap {
            ($0["items"] as? [[String: Any]])?.first
        }
        #expect(items.map { $0["type"] as? String } == ["com.example.scarybugs.bug", "com.example.scarybugs.bug"])
        #expect(items.map { $0["outcome"] as? String } == ["imported", "imported"])
        let store = bob.dataHome + "/ScaryBugs/Bugs"
        #expect(items.map { $0["path"] as? String } == [store + "/Potato Bug", store + "/Potato Bug (2)"])
        // Two imports of the same file give two documents; nothing is overwritten.
        let listed = await bob.runTool("scarybugs", ["list"])
        #expect(listed.stdout == "Potato Bug: Potato Bug, rated 4\nPotato Bug (2): Potato Bug, rated 4\n")
        #expect(FileTree.allPaths(store + "/Potato Bug") == ["data.plist", "fullImage.png", "thumbImage.png"])
        #expect(FileTree.allPaths(store).filter { $0.hasPrefix(".") }.isEmpty, "no scratch folder left")
        #expect(FileTree.allPaths(bob.inbox).isEmpty)
        #expect(FileTree.allPaths(dir.at("downloads")).isEmpty)
    }

    @Test func beerTrackerImportsAValidBeerAndRefusesAnInvalidOne() async throws {
        let dir = TemporaryDirectory("example-beer")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        #expect(await bob.run(["types", "register", ExampleApps.manifest("BeerTracker/Info.plist")]).status == 0)
        #expect(
            await alice.runTool(
                "beertracker",
                [
                    "sample", dir.at("Pale Ale.btkr"), "--name", "Pale Ale", "--rating", "4", "--note", "hoppy",
                    "--image",
                ]
            ).status == 0)
        #expect(
            await alice.runTool("beertracker", ["sample", dir.at("mystery.btkr"), "--name", "Mystery"]).status == 0)

        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("downloads"), "--accept", "all", "--once"])
        #expect(await receiver.waitForOutput(containing: "on port"))
        let port = try #require(
            receiver.stdout.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { Int($0) })
        let sent = await alice.run([
            "send", dir.at("Pale Ale.btkr"), dir.at("mystery.btkr"), "--to", "127.0.0.1:\(port)",
        ])
        let received = await receiver.wait(timeout: .seconds(30))

        #expect(sent.status == 0)
        #expect(
            sent.stdout.hasSuffix(
                "  Pale Ale.btkr: imported by \"BeerTracker\"\n"
                    + "  mystery.btkr: kept in the receiver's inbox: BeerTracker could not import it\n"))
        #expect(received.status == 0)
        let entries =
            jsonObject(await bob.run(["inbox", "list", "--json"]).stdout.replacingOccurrences(of: "\n", with: ""))?[
                "entries"] as? [[String: Any]]
        let entry = try #require(entries?.first)
        let id = try #require(entry["id"] as? String)
        #expect(entries?.count == 1)
        #expect(entry["name"] as? String == "mystery.btkr")
        #expect(entry["state"] as? String == "failed")
        #expect(entry["resolvedType"] as? String == "com.example.beertracker.beer")
        let failure =
            "BeerTracker: its importer failed (exit status 65): Error: 'mystery.btkr' is not a valid beer: the required key 'rating' is missing"
        #expect(entry["failure"] as? String == failure)
        #expect(received.stdout.contains("  Pale Ale.btkr: imported by \"BeerTracker\"\n"))
        #expect(
            received.stdout.contains(
                "  mystery.btkr: kept in the inbox as \(id): \(failure) (retry with 'share inbox import \(id)')\n"))

        // The valid beer is in the list with its image; the invalid one is not.
        let beers = await bob.runTool("beertracker", ["list"])
        #expect(beers.stdout.hasPrefix("Pale Ale: 4/5, hoppy [Images/"))
        #expect(beers.stdout.split(separator: "\n").count == 1)
        #expect(FileTree.allPaths(bob.dataHome + "/BeerTracker/Images").count == 1)

        // The refused beer stays until the user removes it.
        #expect(
            FileManager.default.contents(atPath: bob.inbox + "/\(id)/mystery.btkr")
                == FileManager.default.contents(atPath: dir.at("mystery.btkr")))
        let removed = await bob.run(["inbox", "remove", id])
        #expect(removed.stdout == "Removed \(id) (\"mystery.btkr\") from the inbox.\n")
        #expect(await bob.run(["inbox", "list"]).stdout == "The inbox is empty.\n")
        #expect(FileTree.allPaths(bob.inbox).isEmpty)
    }

    @Test func customFileExtractsItsZipBesideItsStoreAndCleansUp() async throws {
        let dir = TemporaryDirectory("example-customfile")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        #expect(await bob.run(["types", "register", ExampleApps.manifest("CustomFile/Info.plist")]).status == 0)
        #expect(
            await alice.runTool(
                "customfile", ["sample", dir.at("trip.mtt"), "--title", "Trip", "--text", "A day out", "--photo"]
            ).status == 0)
        #expect(
            await alice.runTool(
                "customfile", ["sample", dir.at("note.mtt"), "--title", "Trip", "--text", "Same title"]
            ).status == 0)

        #expect(
            try await Self.send([dir.at("trip.mtt"), dir.at("note.mtt")], from: alice, to: bob, in: dir) == [
                "imported: CustomFile", "imported: CustomFile",
            ])
        let listed = await bob.runTool("customfile", ["list"])
        #expect(listed.stdout == "Trip: Trip: A day out (with a photo)\nTrip (2): Trip: Same title\n")
        #expect(
            FileTree.allPaths(bob.dataHome + "/CustomFile").filter { $0.hasPrefix(".import-") }.isEmpty,
            "the temporary folder is gone")
        #expect(FileTree.allPaths(bob.inbox).isEmpty)
    }

    /// Seed 001: a `.mtt` protected by a password, end to end. The sender's CustomFile exports it as
    /// an AES-256 zip; the receiver's importer says it needs the password (exit status 77), so the
    /// document waits in the inbox; `share inbox import` asks for it on a real terminal without
    /// showing it, or reads it from a file only the user can read, and passes it on stdin.
    @Test func customFileImportsAPasswordProtectedDocumentOnceGivenThePassword() async throws {
        let dir = TemporaryDirectory("example-customfile-password")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        #expect(await bob.run(["types", "register", ExampleApps.manifest("CustomFile/Info.plist")]).status == 0)
        FileTree.writeText(dir.at("alice-password"), "open sesame\n")
        for (file, title) in [("secret.mtt", "Secret"), ("diary.mtt", "Diary")] {
            let made = await alice.runTool(
                "customfile",
                ["sample", dir.at(file), "--title", title, "--text", "for bob only", "--password-file",
                    dir.at("alice-password")])
            #expect(made.status == 0, "\(made.stderr)")
        }
        // The exporter really encrypted it: without the password nothing can be read.
        let stored = try #require(FileManager.default.contents(atPath: dir.at("secret.mtt")))
        #expect(stored[6] & 1 == 1, "the zip's encryption flag")
        #expect(stored[8] == 99, "compression method 99: WinZip AES")

        #expect(
            try await Self.send([dir.at("secret.mtt"), dir.at("diary.mtt")], from: alice, to: bob, in: dir) == [
                "keptInInbox: CustomFile needs the document's password",
                "keptInInbox: CustomFile needs the document's password",
            ])
        let listing = await bob.run(["inbox", "list", "--json"]).stdout
        let listed = try #require(jsonObject(listing.replacingOccurrences(of: "\n", with: "")))
        let entries = try #require(listed["entries"] as? [[String: Any]])
        #expect(entries.map { $0["needsPassword"] as? Bool } == [true, true])
        let secret = try #require(entries.first { $0["name"] as? String == "secret.mtt" }?["id"] as? String)
        let diary = try #require(entries.first { $0["name"] as? String == "diary.mtt" }?["id"] as? String)
        #expect(
            entries.first { $0["id"] as? String == secret }?["failure"] as? String
                == "CustomFile: the document is protected by a password; 'share inbox import \(secret)' asks for it")

        // A wrong password, typed on a terminal: not shown, and the document stays with that reason.
        let wrong = bob.interactive(["inbox", "import", secret])
        #expect(wrong.waitForOutput(containing: "Password for \"secret.mtt\" (CustomFile): "))
        wrong.type("swordfish\n")
        #expect(wrong.wait() == 1)
        #expect(!wrong.output.contains("swordfish"), "the password is never echoed")
        #expect(
            wrong.output.contains(
                "Error: \"secret.mtt\" stays in the inbox: CustomFile: the password given does not open the document; "
                    + "'share inbox remove \(secret)' deletes it"))
        let afterWrong = await bob.run(["inbox", "list"])
        #expect(afterWrong.stdout.contains("failed: CustomFile: the password given does not open the document"))
        #expect(FileManager.default.fileExists(atPath: bob.inbox + "/\(secret)/secret.mtt"))

        // The right one.
        let right = bob.interactive(["inbox", "import", String(secret.prefix(6))])
        #expect(right.waitForOutput(containing: "Password for \"secret.mtt\" (CustomFile): "))
        right.type("open sesame\n")
        #expect(right.wait() == 0, "\(right.output)")
        #expect(!right.output.contains("open sesame"))
        #expect(right.output.contains("Imported \"secret.mtt\" with \"CustomFile\"."))

        // --password-file: refused while others can read the file, used once it is the user's alone.
        FileTree.writeText(dir.at("bob-password"), "open sesame\n")
        chmod(dir.at("bob-password"), 0o644)
        let readable = await bob.run(["inbox", "import", diary, "--password-file", dir.at("bob-password")])
        #expect(readable.status == 1)
        #expect(
            readable.stderr
                == "Error: the password file '\(dir.at("bob-password"))' can be read by other users (mode 644); make it yours alone with 'chmod 600 \(dir.at("bob-password"))'\n"
        )
        chmod(dir.at("bob-password"), 0o600)
        let fromFile = await bob.run(["inbox", "import", diary, "--password-file", dir.at("bob-password")])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromFile.stdout == "Imported \"diary.mtt\" with \"CustomFile\".\n")

        let documents = await bob.runTool("customfile", ["list"])
        #expect(documents.stdout == "Diary: Diary: for bob only\nSecret: Secret: for bob only\n")
        #expect(FileTree.allPaths(bob.inbox).isEmpty)
    }

    /// Sends `files` from `sender` to a `share receive --once` of `receiver`; what the sender's
    /// receipt says of each, as `OUTCOME: TEXT` (`imported: CustomFile`, `keptInInbox: why`).
    static func send(_ files: [String], from sender: TestMachine, to receiver: TestMachine, in dir: TemporaryDirectory)
        async throws -> [String]
    {
        let receiving = receiver.start([
            "receive", "--port", "0", "--dir", dir.at("downloads"), "--accept", "all", "--once", "--json",
        ])
        let port = try #require(await receiving.listeningPort())
        let sent = await sender.run(["send"] + files + ["--to", "127.0.0.1:\(port)", "--json"])
        _ = await receiving.wait(timeout: .seconds(30))
        let report = try #require(jsonObject(sent.stdout))
        return (report["items"] as? [[String: Any]] ?? []).map { item in
            let outcome = item["outcome"] as? String ?? "?"
            let text = (item["application"] as? [String: Any])?["name"] ?? item["reason"] ?? item["path"]
            return "\(outcome): \(text as? String ?? "?")"
        }
    }

    @Test func twoApplicationsOfAnAppGroupShareOneContainer() async throws {
        let dir = TemporaryDirectory("example-appgroup")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let journal = ExampleApps.manifest("SharedContainer/Journal/Info.plist")
        let scrapbook = ExampleApps.manifest("SharedContainer/Scrapbook/Info.plist")
        #expect(await bob.run(["types", "register", journal]).status == 0)
        #expect(await bob.run(["types", "register", scrapbook]).status == 0)
        FileTree.writeText(dir.at("Monday.jentry"), "Dear diary, it rained.\n")
        FileTree.writeText(dir.at("recipe.clip"), "Soup: water, stones.\n")

        let receiver = bob.start([
            "receive", "--port", "0", "--dir", dir.at("downloads"), "--accept", "all", "--once", "--json",
        ])
        let port = try #require(await receiver.listeningPort())
        let sent = await alice.run([
            "send", dir.at("Monday.jentry"), dir.at("recipe.clip"), "--to", "127.0.0.1:\(port)",
        ])
        _ = await receiver.wait(timeout: .seconds(30))

        #expect(
            sent.stdout.hasSuffix("  Monday.jentry: imported by \"Journal\"\n  recipe.clip: imported by \"Scrapbook\"\n"))
        let container = bob.home + "/.local/share/group.com.example.notes/Documents"
        // Journal lists what Scrapbook imported, and the other way round.
        let seenByJournal = await bob.runTool("notesgroup", ["list", journal])
        let seenByScrapbook = await bob.runTool("notesgroup", ["list", scrapbook])
        #expect(seenByJournal.stdout == "Journal sees 2 documents in \(container):\n  Monday.jentry\n  recipe.clip\n")
        #expect(
            seenByScrapbook.stdout == "Scrapbook sees 2 documents in \(container):\n  Monday.jentry\n  recipe.clip\n")
        #expect(FileTree.allPaths(bob.inbox).isEmpty)
    }
}
