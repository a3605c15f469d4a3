/// Malformed XML, with the line where the reader noticed.
struct XMLReaderError: Error, CustomStringConvertible {
    let message: String
    let line: Int

    var description: String { "line \(line): \(message)" }
}
