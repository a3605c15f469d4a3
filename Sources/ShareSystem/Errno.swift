#if canImport(Glibc)
    import Glibc
#endif

/// An error number a system call left in `errno`, in the manner of swift-system's `Errno`: a value
/// that says what happened in words (`strerror`), for the messages every layer builds from it.
package struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number (`ENOENT`, `EACCES`...).
    package let rawValue: Int32

    /// The error number `rawValue`.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The error number `code`.
    package init(_ code: Int32) { self.rawValue = code }

    /// The calling thread's `errno` now.
    package static var current: Errno { Errno(errno) }

    /// What the number means, in words ("No such file or directory").
    package var description: String { String(cString: strerror(rawValue)) }

    /// EINTR: a signal interrupted the call, which is then made again.
    package static let interrupted = Errno(EINTR)
}
