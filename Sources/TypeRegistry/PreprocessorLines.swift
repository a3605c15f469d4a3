import Foundation

/// C preprocessor lines in an XML manifest (`#ifdef DEBUG` ... `#else` ... `#endif`), as Xcode's
/// Info.plist preprocessing (`INFOPLIST_PREPROCESS`) lets a repository's Info.plist hold them:
/// Xcode evaluates them when it builds the app, so they are not XML and no plist reader accepts
/// them. share skips each such line, with a warning, and reads the lines of every branch.
enum PreprocessorLines {
    /// The directives recognised after `#`.
    static let directives: Set<String> = [
        "if", "ifdef", "ifndef", "elif", "else", "endif", "define", "undef", "include", "import", "pragma", "error",
        "warning", "line",
    ]

    /// The manifest with every preprocessor line blanked (line numbers stay), and a warning per line.
    /// Binary property lists, and lines inside a multi-line `<string>`, are left alone.
    static func strip(_ data: Data) -> (data: Data, warnings: [ManifestWarning]) {
        let bytes = [UInt8](data)
        guard !bytes.starts(with: Array("bplist".utf8)), bytes.contains(UInt8(ascii: "#")) else { return (data, []) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var warnings: [ManifestWarning] = []
        var openStrings = 0
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            lineNumber += 1
            let line = bytes[start..<end]
            if openStrings == 0, let directive = directive(in: line) {
                warnings.append(
                    ManifestWarning(
                        location: "line \(lineNumber)",
                        message:
                            "'\(directive)' is a preprocessor line, which Xcode evaluates when it builds the app; "
                            + "skipped (the lines of every branch are read)"))
            } else {
                output += line
                openStrings = max(0, openStrings + count("<string>", in: line) - count("</string>", in: line))
            }
            if end < bytes.count { output.append(UInt8(ascii: "\n")) }
            start = end + 1
        }
        return warnings.isEmpty ? (data, []) : (Data(output), warnings)
    }

    /// The directive text (`#ifdef DEBUG`) when the line is a preprocessor line.
    private static func directive(in line: ArraySlice<UInt8>) -> String? {
        let text = String(decoding: line, as: UTF8.self).trimmingTypeWhitespace()
        guard text.hasPrefix("#") else { return nil }
        let word = text.dropFirst().drop { $0 == " " || $0 == "\t" }.prefix { $0.isLetter }
        guard directives.contains(String(word)) else { return nil }
        return text
    }

    private static func count(_ tag: String, in line: ArraySlice<UInt8>) -> Int {
        let pattern = Array(tag.utf8)
        guard line.count >= pattern.count else { return 0 }
        var found = 0
        var index = line.startIndex
        while index + pattern.count <= line.endIndex {
            if line[index..<(index + pattern.count)].elementsEqual(pattern) {
                found += 1
                index += pattern.count
            } else {
                index += 1
            }
        }
        return found
    }
}
