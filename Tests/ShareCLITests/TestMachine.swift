import Foundation
import ShareTestSupport

/// One simulated user on this machine: a home folder and a config folder of its own, so several
/// identities can talk to each other on loopback.
struct TestMachine {
    let home: String
    let config: String
    let environment: [String: String]

    /// `$XDG_DATA_HOME/share/Inbox`: where transfers are staged and documents wait for their import.
    var inbox: String { home + "/.local/share/share/Inbox" }
    /// `$XDG_DATA_HOME`.
    var dataHome: String { home + "/.local/share" }

    init(_ name: String, in directory: TemporaryDirectory) {
        home = directory.at(name)
        config = directory.at(name + "/.config/share")
        FileTree.makeFolder(home)
        environment = ShareBinary.environment(home: home, config: config)
        _ = ShareBinary.run(["identity", "set-name", name], environment: environment)
    }

    func run(_ arguments: [String], stdin: String? = nil, timeout: Duration = .seconds(120)) -> ShareBinary.Result {
        ShareBinary.run(arguments, environment: environment, stdin: stdin, timeout: timeout)
    }

    func start(_ arguments: [String]) -> RunningShare {
        ShareBinary.start(arguments, environment: environment)
    }
}

/// Parses one line of JSON into a dictionary.
func jsonObject(_ line: some StringProtocol) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
}

/// The JSON lines of an output, parsed.
func jsonLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap(jsonObject)
}
