import Foundation

/// A LocalSend PIN given on the command line, as `--NAME PIN` or as the first line of `--NAME-file FILE`
/// (kept out of `ps`).
enum PinOption {
    /// The PIN of `--name` / `--name-file`, nil when neither was given.
    static func parse(_ parsed: ParsedArguments, _ name: String) throws(UsageError) -> String? {
        guard let file = parsed.value(name + "-file") else { return parsed.value(name) }
        if parsed.value(name) != nil { throw parsed.usageError("--\(name) and --\(name)-file cannot be used together") }
        guard let data = FileManager.default.contents(atPath: file), data.count <= 4096,
            let line = String(data: data, encoding: .utf8)?.split(whereSeparator: \.isNewline).first, !line.isEmpty
        else { throw parsed.usageError("The file '\(file)' for '--\(name)-file' cannot be read or holds no PIN") }
        return String(line)
    }
}
