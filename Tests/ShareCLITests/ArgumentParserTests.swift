@testable import ShareCLI
import Testing

/// The parser's rules, in process.
@Suite struct ArgumentParserTests {
    func parse(_ words: [String]) -> Result<Invocation, UsageError> {
        ArgumentParser.parse(["share"] + words, root: CommandTable.root)
    }

    @Test func bindsOptionsInBothFormsAndPositionals() throws {
        guard case .success(.run(let path, let parsed)) = parse(["send", "a b.txt", "--to=h:1", "--json", "--", "--odd-name"]) else {
            Issue.record("did not parse")
            return
        }
        #expect(path.map(\.name) == ["share", "send"])
        #expect(parsed.positionals == ["a b.txt", "--odd-name"])
        #expect(parsed.value("to") == "h:1")
        #expect(parsed.flag("json"))
    }

    @Test func helpResolvesTheDeepestCommand() {
        guard case .success(.help(let path)) = parse(["identity", "set-name", "-h"]) else {
            Issue.record("no help")
            return
        }
        #expect(path.map(\.name) == ["share", "identity", "set-name"])
    }

    @Test func suggestsTheClosestOption() {
        guard case .failure(let error) = parse(["receive", "--prot", "1"]) else {
            Issue.record("accepted an unknown option")
            return
        }
        #expect(error.message == "Unknown option '--prot'. Did you mean '--port'?")
    }

    @Test func refusesUnexpectedPositionals() {
        guard case .failure(let error) = parse(["receive", "extra"]) else {
            Issue.record("accepted an extra argument")
            return
        }
        #expect(error.message == "Unexpected argument 'extra'")
    }
}
