import Foundation

import ShareSystem

#if canImport(Glibc)
import Glibc
#endif

/// How much data the whole system has written to files but not yet to disk: what one `syncfs`
/// may have to wait for (``StagingArea``'s choice of how to commit).
enum UnwrittenData {
    /// `Dirty` + `Writeback` of `/proc/meminfo`, in bytes; nil when it cannot be read.
    static func systemBytes(meminfo path: String = "/proc/meminfo") -> UInt64? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 8192)
        let got = buffer.withUnsafeMutableBytes { POSIX.readSome(fd, $0) }
        guard got > 0 else { return nil }
        return parse(String(decoding: buffer[..<got], as: UTF8.self))
    }

    /// The sum of the `Dirty:` and `Writeback:` lines (in kB) of a `/proc/meminfo` text, in bytes.
    static func parse(_ meminfo: String) -> UInt64? {
        var total: UInt64 = 0
        var found = 0
        for line in meminfo.split(separator: "\n") where line.hasPrefix("Dirty:") || line.hasPrefix("Writeback:") {
            guard let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ UInt64($0) }) else { return nil }
            total += kilobytes * 1024
            found += 1
        }
        return found == 2 ? total : nil
    }
}
