import Foundation
import ShareTestSupport
import Testing

/// `share config` and the settings file: values are checked, stored, listed, and used by `share receive`.
@Suite(.serialized) struct ConfigCommandTests {
    @Test func setGetListAndUnset() throws {
        let dir = TemporaryDirectory("config-basic")
        let bob = TestMachine("bob", in: dir)

        #expect(bob.run(["config", "get", "port"]).stdout == "47321\n")
        #expect(bob.run(["config", "get", "dir"]).stdout == bob.home + "/Downloads\n")
        let set = bob.run(["config", "set", "dir", "~/Inbox"])
        #expect(set.status == 0)
        #expect(set.stdout == "dir = \(bob.home)/Inbox\n", "~ is the user's home")
        #expect(bob.run(["config", "set", "accept", "all"]).stdout == "accept = everyone\n")
        #expect(bob.run(["config", "set", "everyone-for", "1h30m"]).stdout == "everyone-for = 1h30m\n")
        #expect(bob.run(["config", "set", "compression", "no"]).stdout == "compression = off\n")
        #expect(bob.run(["config", "set", "rate-limit", "1.5 MB/s"]).stdout.hasPrefix("rate-limit = 1.5 MB/s"))
        #expect(bob.run(["config", "set", "execute-bit", "keep-in-bundles"]).status == 0)

        let list = bob.run(["config", "list"])
        #expect(list.status == 0)
        #expect(
            list.stdout == """
                name          bob
                dir           \(bob.home)/Inbox
                port          47321 (default)
                accept        everyone
                everyone-for  1h30m
                execute-bit   keep-in-bundles
                compression   off
                rate-limit    1.5 MB/s
                localsend     off (default)

                """)
        let json = try #require(
            jsonObject(bob.run(["config", "list", "--json"]).stdout.replacingOccurrences(of: "\n", with: "")))
        let port = try #require(json["port"] as? [String: Any])
        #expect(port["value"] as? String == "47321")
        #expect(port["set"] as? Bool == false)
        #expect((json["rate-limit"] as? [String: Any])?["applied"] as? Bool == true)
        #expect((json["compression"] as? [String: Any])?["applied"] as? Bool == true)

        // The file holds typed JSON values under the same keys.
        let file = try #require(
            jsonObject(FileTree.readText(bob.config + "/settings.json").replacingOccurrences(of: "\n", with: "")))
        #expect(file["everyone-for"] as? Int == 5400)
        #expect(file["rate-limit"] as? Int == 1_500_000)
        #expect(file["dir"] as? String == bob.home + "/Inbox")
        #expect(file["name"] as? String == "bob", "set-name and config share one file")

        #expect(bob.run(["config", "unset", "accept"]).stdout == "accept = ask (default)\n")
        #expect(bob.run(["config", "get", "accept"]).stdout == "ask\n")
        #expect(bob.run(["identity", "set-name", "desk"]).status == 0)
        #expect(bob.run(["config", "get", "everyone-for"]).stdout == "1h30m\n", "set-name keeps the other keys")
    }

    @Test(arguments: [
        ("port", "70000", "'70000' is not a valid value for 'port'; expected a number from 0 to 65535"),
        ("accept", "maybe", "'maybe' is not a valid value for 'accept'; expected ask, trusted or everyone"),
        (
            "everyone-for", "2w",
            "'2w' is not a valid value for 'everyone-for'; expected a duration such as 90s, 10m or 2h (at most a week), or none"
        ),
        (
            "rate-limit", "5k",
            "'5k' is not a valid value for 'rate-limit'; expected a rate of at least 10 kB/s such as 500k, 10M or 1.5 MB/s, or none"
        ),
        ("compression", "fast", "'fast' is not a valid value for 'compression'; expected on or off"),
        ("execute-bit", "x", "'x' is not a valid value for 'execute-bit'; expected strip or keep-in-bundles"),
        ("name", "", "'' is not a valid value for 'name' (the name is empty); expected a name of at most 63 bytes"),
    ])
    func refusesInvalidValuesAndChangesNothing(_ key: String, _ value: String, _ message: String) throws {
        let dir = TemporaryDirectory("config-invalid")
        let bob = TestMachine("bob", in: dir)
        let before = FileTree.readText(bob.config + "/settings.json")
        let result = bob.run(["config", "set", key, value])
        #expect(result.status == 64)
        #expect(result.stdout == "")
        #expect(result.stderr == "Error: \(message)\n")
        #expect(FileTree.readText(bob.config + "/settings.json") == before)
    }

    @Test func theDefaultReceiveFolderIsTheDownloadFolderOfUserDirs() throws {
        let dir = TemporaryDirectory("config-user-dirs")
        let bob = TestMachine("bob", in: dir)
        FileTree.makeFolder(bob.home + "/.config")
        // As xdg-user-dirs writes it, kept elsewhere and linked in, as dotfile managers do.
        FileTree.writeText(
            dir.at("dotfiles-user-dirs"), "# written by xdg-user-dirs-update\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_DOWNLOAD_DIR=\"$HOME/Téléchargements\"\n")
        symlink(dir.at("dotfiles-user-dirs"), bob.home + "/.config/user-dirs.dirs")
        #expect(bob.run(["config", "get", "dir"]).stdout == bob.home + "/Téléchargements\n")

        // A download folder that is the home folder itself is not taken (xdg-user-dirs: disabled).
        unlink(bob.home + "/.config/user-dirs.dirs")
        FileTree.writeText(bob.home + "/.config/user-dirs.dirs", "XDG_DOWNLOAD_DIR=\"$HOME/\"\n")
        #expect(bob.run(["config", "get", "dir"]).stdout == bob.home + "/Downloads\n")
    }

    @Test func aFileInTheFolderIsNotAReceiveFolder() throws {
        let dir = TemporaryDirectory("config-dir")
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("plain"), "x")
        let result = bob.run(["config", "set", "dir", dir.at("plain")])
        #expect(result.status == 64)
        #expect(result.stderr.contains("'\(dir.at("plain"))' exists and is not a folder"))
    }

    @Test func unknownKeysAreSuggestedAndUnknownFileKeysKept() throws {
        let dir = TemporaryDirectory("config-unknown")
        let bob = TestMachine("bob", in: dir)
        let typo = bob.run(["config", "get", "prot"])
        #expect(typo.status == 64)
        #expect(typo.stderr.hasPrefix("Error: Unknown setting 'prot'. Did you mean 'port'?\n"))

        FileTree.writeText(bob.config + "/settings.json", #"{"name": "bob", "future": {"a": [1, 2]}}"#)
        let list = bob.run(["config", "list"])
        #expect(list.status == 0)
        #expect(list.stderr.contains("has keys this version does not know (kept, ignored): future"))
        #expect(bob.run(["config", "set", "port", "4000"]).status == 0)
        let file = try #require(
            jsonObject(FileTree.readText(bob.config + "/settings.json").replacingOccurrences(of: "\n", with: "")))
        #expect((file["future"] as? [String: Any])?["a"] as? [Int] == [1, 2])
        #expect(file["port"] as? Int == 4000)
    }

    @Test func aBadValueInTheFileIsReportedWithItsKey() throws {
        let dir = TemporaryDirectory("config-bad-file")
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(bob.config + "/settings.json", #"{"name": "bob", "port": true}"#)
        let result = bob.run(["receive", "--port", "0", "--once"], timeout: .seconds(20))
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: cannot read '\(bob.config)/settings.json': 'port': expected a number, found true (change it with "
                + "'share config set port VALUE'); fix or remove the file\n")
    }

    @Test func receiveTakesItsDefaultsFromTheSettingsAndOptionsWin() throws {
        let dir = TemporaryDirectory("config-receive")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        for (key, value) in [
            ("dir", dir.at("from-settings")), ("accept", "everyone"), ("name", "bob-desk"), ("port", "0"),
        ] {
            #expect(bob.run(["config", "set", key, value]).status == 0)
        }

        // No --accept: the setting's "everyone" accepts without a terminal.
        let receiver = bob.start(["receive", "--once", "--json"])
        let port = try #require(receiver.listeningPort())
        let listening = try #require(jsonLines(receiver.stdout).first)
        #expect(listening["name"] as? String == "bob-desk")
        #expect(listening["directory"] as? String == dir.at("from-settings"))
        #expect(listening["accept"] as? String == "everyone")
        let sent = alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sent.status == 0)
        #expect(receiver.wait(timeout: .seconds(30)).status == 0)
        #expect(FileTree.readText(dir.at("from-settings/a.txt")) == "hello\n")

        // Options override each setting.
        let overridden = bob.start([
            "receive", "--once", "--json", "--dir", dir.at("opt"), "--name", "other", "--accept", "trusted",
        ])
        _ = try #require(overridden.listeningPort())
        let event = try #require(jsonLines(overridden.stdout).first)
        #expect(event["name"] as? String == "other")
        #expect(event["directory"] as? String == dir.at("opt"))
        #expect(event["accept"] as? String == "trusted")
        overridden.signal(SIGINT)
        _ = overridden.wait(timeout: .seconds(20))
    }

    @Test func everyoneForNeedsEveryoneFromTheOptionsOrTheSettings() throws {
        let dir = TemporaryDirectory("config-everyone-for")
        let bob = TestMachine("bob", in: dir)
        let refused = bob.run(["receive", "--port", "0", "--everyone-for", "10m"], timeout: .seconds(20))
        #expect(refused.status == 64)
        #expect(
            refused.stderr.hasPrefix(
                "Error: --everyone-for needs --accept everyone (the setting 'accept' is ask)\nUsage: share receive "))

        #expect(bob.run(["config", "set", "accept", "everyone"]).status == 0)
        #expect(bob.run(["config", "set", "everyone-for", "10m"]).status == 0)
        let receiver = bob.start(["receive", "--port", "0"])
        #expect(receiver.waitForOutput(containing: "accepting: everyone for 10m, then ask."))
        receiver.signal(SIGINT)
        _ = receiver.wait(timeout: .seconds(20))
    }
}
