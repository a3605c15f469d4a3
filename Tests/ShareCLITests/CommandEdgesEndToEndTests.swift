import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Rough edges of the command line, through the real binary: retrying the whole inbox, a kept document
/// going where its receiver would have put it, the addresses a receiver prints for people who must
/// type them, and forgetting a peer saved without a name.
@Suite(.serialized) struct CommandEdgesEndToEndTests {
    /// Sends `names` (BeerTracker samples) to a receiver of `bob` with `--dir downloads` while
    /// BeerTracker's store is blocked, so each stays in the inbox; returns their inbox identifiers.
    private func keepInInbox(_ names: [String], from alice: TestMachine, to bob: TestMachine, in dir: TemporaryDirectory)
        async throws -> [String]
    {
        #expect(await bob.run(["types", "register", ExampleApps.manifest("BeerTracker/Info.plist")]).status == 0)
        FileTree.makeFolder(bob.dataHome)
        FileTree.writeText(bob.dataHome + "/BeerTracker", "not a folder")
        var ids: [String] = []
        for name in names {
            let sample = await alice.runTool(
                "beertracker", ["sample", dir.at("\(name).btkr"), "--name", name, "--rating", "4"])
            #expect(sample.status == 0)
            let receiver = bob.start([
                "receive", "--port", "0", "--dir", dir.at("downloads"), "--accept", "all", "--once", "--json",
            ])
            let port = try #require(await receiver.listeningPort())
            #expect(await alice.run(["send", dir.at("\(name).btkr"), "--to", "127.0.0.1:\(port)"]).status == 0)
            let received = await receiver.wait(timeout: .seconds(30))
            let item = try #require((jsonLines(received.stdout).last?["items"] as? [[String: Any]])?.first)
            #expect(item["outcome"] as? String == "keptInInbox")
            ids.append(try #require(item["inboxID"] as? String))
        }
        return ids
    }

    @Test func importAllRetriesEveryKeptDocumentAndSaysHowManyStay() async throws {
        let dir = TemporaryDirectory("inbox-all")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let ids = try await keepInInbox(["Stout", "Porter"], from: alice, to: bob, in: dir)
        #expect(ids.count == 2)

        let broken = await bob.run(["inbox", "import", "--all"])
        #expect(broken.status == 1)
        #expect(broken.stdout == "Imported 0 of 2 documents; 2 stay in the inbox ('share inbox list' says why).\n")
        for (id, name) in zip(ids, ["Stout", "Porter"]) {
            #expect(broken.stderr.contains("Error: \"\(name).btkr\" stays in the inbox: BeerTracker: cannot use its folder"))
            #expect(broken.stderr.contains("'share inbox remove \(id)' deletes it"))
        }

        unlink(bob.dataHome + "/BeerTracker")
        let fixed = await bob.run(["inbox", "import", "--all"])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(
            fixed.stdout
                == "Imported \"Stout.btkr\" with \"BeerTracker\".\nImported \"Porter.btkr\" with \"BeerTracker\".\n"
                + "Imported 2 of 2 documents.\n")
        #expect(await bob.runTool("beertracker", ["list"]).stdout.split(separator: "\n").sorted() == ["Porter: 4/5", "Stout: 4/5"])
        let empty = await bob.run(["inbox", "import", "--all"])
        #expect(empty.status == 0)
        #expect(empty.stdout == "The inbox is empty.\n")
    }

    @Test func aKeptDocumentNoApplicationTakesGoesToTheFolderOfItsReceiver() async throws {
        let dir = TemporaryDirectory("inbox-dir")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let id = try #require(try await keepInInbox(["Stout"], from: alice, to: bob, in: dir).first)
        // BeerTracker is gone: no application imports .btkr documents any more, and the type is unknown.
        #expect(await bob.run(["types", "unregister", "com.example.beertracker"]).status == 0)

        let placed = await bob.run(["inbox", "import", id])
        #expect(placed.status == 0, "\(placed.stderr)")
        #expect(placed.stdout.hasPrefix("Placed \"Stout.btkr\" in the receive folder: \(dir.at("downloads/Stout.btkr")) ("))
        #expect(!placed.stdout.contains("dyn."), "an unknown type is described, not shown as its identifier: \(placed.stdout)")
        #expect(FileManager.default.fileExists(atPath: dir.at("downloads/Stout.btkr")))
        #expect(!FileManager.default.fileExists(atPath: bob.home + "/Downloads/Stout.btkr"), "not the default download folder")
        #expect(await bob.run(["inbox", "list"]).stdout == "The inbox is empty.\n")
    }

    @Test func theReceiverPrintsTheAddressesASenderTypesAfterTo() async throws {
        let dir = TemporaryDirectory("receive-addresses")
        let bob = TestMachine("bob", in: dir)
        let json = bob.start(["receive", "--port", "0", "--dir", dir.at("in"), "--json"])
        let port = try #require(await json.listeningPort())
        let listening = try #require(jsonLines(json.stdout).first { $0["event"] as? String == "listening" })
        let addresses = try #require(listening["addresses"] as? [String])
        json.signal(SIGTERM)
        _ = await json.wait(timeout: .seconds(10))
        #expect(!addresses.isEmpty)
        for address in addresses {
            // `192.168.1.20:PORT` or `[fd00::2]:PORT`: what --to takes.
            #expect(address.hasSuffix(":\(port)"), "\(address)")
            let host = address.dropLast(":\(port)".count)
            #expect(host.hasPrefix("[") ? host.hasSuffix("]") && host.contains(":") : host.split(separator: ".").count == 4, "\(address)")
        }

        let text = bob.start(["receive", "--port", "0", "--dir", dir.at("in")])
        #expect(await text.waitForOutput(containing: "Press Ctrl-C to stop."))
        text.signal(SIGTERM)
        let output = await text.wait(timeout: .seconds(10)).stdout
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("Senders that cannot see it nearby can use --to ") })
        let shown = line.dropFirst("Senders that cannot see it nearby can use --to ".count).components(separatedBy: " or ")
        let textPort = try #require(output.components(separatedBy: " on port ").dropFirst().first?.prefix { $0.isNumber })
        #expect(shown.count == addresses.count)
        #expect(shown.allSatisfy { $0.hasSuffix(":\(textPort)") }, "\(line)")
    }

    @Test func forgettingAPeerSavedWithoutANameNamesItByItsKey() async throws {
        let dir = TemporaryDirectory("trust-nameless")
        let bob = TestMachine("bob", in: dir)
        let verified = String(repeating: "ab", count: 32)
        let blocked = String(repeating: "cd", count: 32)
        FileTree.makeFolder(bob.config)
        FileTree.writeText(
            bob.config + "/trust.json",
            #"{"peers":[{"fingerprint":"\#(verified)","name":"","firstSeen":"2026-01-01T00:00:00Z","verification":"code"}],"blocked":[]}"#)
        #expect(await bob.run(["trust", "block", blocked]).status == 0)

        let forgot = await bob.run(["trust", "remove", String(verified.prefix(8))])
        #expect(forgot.status == 0, "\(forgot.stderr)")
        #expect(forgot.stdout.hasPrefix("Forgot the peer with key ABAB"))
        #expect(forgot.stdout.hasSuffix(": it is no longer verified.\n"))
        #expect(!forgot.stdout.contains("\"\""))
        let unblocked = await bob.run(["trust", "remove", String(blocked.prefix(8))])
        #expect(unblocked.status == 0, "\(unblocked.stderr)")
        #expect(unblocked.stdout.hasPrefix("No longer blocking the peer with key CDCD"))
        let left = (try? String(contentsOfFile: bob.config + "/trust.json", encoding: .utf8)) ?? ""
        #expect(!left.contains(verified) && !left.contains(blocked), "both are forgotten")
    }
}
