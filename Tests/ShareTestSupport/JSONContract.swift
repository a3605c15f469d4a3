import Foundation
import Synchronization
import Testing

/// The JSON contract (docs/JSON.md): everything `share ... --json` prints in any test is checked
/// against the command's JSON Schema in docs/schemas, and every mismatch fails the test that ran it.
///
/// The checking is done by `Tests/Contract/validate-json.py` (Debian's python3-jsonschema, installed
/// by `make deps`), started once per test process and fed one output at a time.
public enum JSONContract {
    /// The repository's root.
    static var root: URL {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root
    }

    /// Whether `arguments` ask for JSON (`--json` before any `--`).
    public static func wantsJSON(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--json")
    }

    /// Checks what `share arguments` printed on stdout and records an issue for each problem.
    /// - Parameters:
    ///   - exitStatus: the exit status, when the process ended by itself.
    ///   - complete: false when the process was killed (its last line may be cut off).
    public static func check(arguments: [String], stdout: String, exitStatus: Int32?, complete: Bool) {
        guard wantsJSON(arguments) else { return }
        for problem in problems(arguments: arguments, stdout: stdout, exitStatus: exitStatus, complete: complete) {
            Issue.record(
                Comment(rawValue: "share \(arguments.joined(separator: " ")): \(problem)\nstdout:\n\(stdout.prefix(2000))"))
        }
    }

    /// What is wrong with the output, if anything.
    public static func problems(arguments: [String], stdout: String, exitStatus: Int32?, complete: Bool) -> [String] {
        var request: [String: Any] = ["argv": arguments, "stdout": stdout, "complete": complete]
        request["exitStatus"] = exitStatus.map { Int($0) } ?? NSNull()
        guard let data = try? JSONSerialization.data(withJSONObject: request) else { return ["cannot encode the request"] }
        return validator.withLock { validator in
            if validator == nil { validator = Validator() }
            return validator!.ask(data)
        }
    }

    private static let validator = Mutex<Validator?>(nil)

    /// The validator process, answering one request per line.
    private final class Validator {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        var buffer = Data()
        var startProblem: String?

        init() {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [
                JSONContract.root.appendingPathComponent("Tests/Contract/validate-json.py").path, "--serve",
                JSONContract.root.appendingPathComponent("docs/schemas").path,
            ]
            process.standardInput = input
            process.standardOutput = output
            do {
                try process.run()
            } catch {
                startProblem = "cannot run /usr/bin/python3 (install python3-jsonschema: make deps): \(error)"
            }
        }

        deinit {
            try? input.fileHandleForWriting.close()
            if process.isRunning { process.terminate() }
        }

        func ask(_ request: Data) -> [String] {
            if let startProblem { return [startProblem] }
            guard process.isRunning else {
                return ["the JSON Schema validator is not running (is python3-jsonschema installed? run 'make deps')"]
            }
            do {
                try input.fileHandleForWriting.write(contentsOf: request + Data("\n".utf8))
            } catch {
                return ["cannot reach the JSON Schema validator: \(error)"]
            }
            while !buffer.contains(0x0A) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty {
                    return ["the JSON Schema validator stopped (is python3-jsonschema installed? run 'make deps')"]
                }
                buffer.append(chunk)
            }
            let newline = buffer.firstIndex(of: 0x0A)!
            let line = buffer[buffer.startIndex..<newline]
            buffer = Data(buffer[(newline + 1)...])
            guard let answer = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
                let problems = answer["problems"] as? [String]
            else { return ["the JSON Schema validator answered something else: \(String(decoding: line, as: UTF8.self))"] }
            return problems
        }
    }
}
