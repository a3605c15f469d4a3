/// A system call that failed on a path: what was done, where, and what `errno` said.
package struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was done, as a verb phrase ("examine", "open").
    package let operation: String
    /// The path it was done on.
    package let path: String
    /// What the system said.
    package let code: Errno

    /// `operation` on `path` failed with `code`.
    package init(_ operation: String, _ path: String, _ code: Errno = .current) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// "cannot examine '/path': No such file or directory".
    package var description: String { "cannot \(operation) '\(path)': \(code)" }
}
