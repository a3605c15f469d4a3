public import Foundation

#if canImport(Glibc)
public import Glibc
#endif

/// Builds and compares file trees for transfer tests.
public enum FileTree {
    /// Writes `size` bytes of deterministic pseudo-random content (seeded) to `path`.
    public static func writeFile(_ path: String, size: Int, seed: UInt64 = 1, mode: mode_t = 0o644) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
        precondition(fd >= 0, "cannot create \(path)")
        defer { close(fd) }
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        let chunk = 1 << 20
        var buffer = [UInt8](repeating: 0, count: min(size, chunk))
        var remaining = size
        while remaining > 0 {
            let count = min(remaining, chunk)
            buffer.withUnsafeMutableBytes { raw in
                let words = raw.bindMemory(to: UInt64.self)
                for index in 0..<(count + 7) / 8 where index < words.count {
                    state ^= state << 13
                    state ^= state >> 7
                    state ^= state << 17
                    words[index] = state
                }
            }
            let written = buffer.withUnsafeBytes { write(fd, $0.baseAddress, count) }
            precondition(written == count, "short write to \(path)")
            remaining -= count
        }
        _ = fchmod(fd, mode)
    }

    /// Creates a sparse file of `size` bytes of zeros: cheap to make, slow enough to send that a
    /// test can act while it is in flight.
    public static func writeSparseFile(_ path: String, size: Int) {
        writeText(path, "")
        precondition(truncate(path, off_t(size)) == 0, "cannot size \(path)")
    }

    /// Writes `text` to `path`.
    public static func writeText(_ path: String, _ text: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    /// Creates a folder (and parents).
    /// The text of a file, or "" when it cannot be read.
    public static func readText(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    public static func makeFolder(_ path: String, mode: mode_t = 0o755) {
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, mode)
    }

    /// Sets a path's modification time (not following links).
    public static func setModificationTime(_ path: String, seconds: Int, nanoseconds: Int = 0) {
        var times = [timespec(tv_sec: seconds, tv_nsec: nanoseconds), timespec(tv_sec: seconds, tv_nsec: nanoseconds)]
        utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
    }

    /// One line per entry under `root`: relative path, kind, mode, mtime, size, link target and a
    /// content digest, sorted. Two trees with equal descriptions are equal in everything a transfer
    /// must keep. With `asReceived`, modes are shown as a receiver (umask 022) gives them.
    public static func describe(_ root: String, includeRootTime: Bool = false, asReceived: Bool = false) -> [String] {
        var lines: [String] = []
        func visit(_ path: String, _ relative: String) {
            var info = stat()
            guard lstat(path, &info) == 0 else { return }
            var bits = Int(info.st_mode & 0o7777)
            if asReceived {
                // What a receiver with umask 022 keeps (docs/SECURITY.md): no execute bits on files,
                // nothing writable by others, the owner can always read (and enter folders).
                bits = (info.st_mode & S_IFMT) == S_IFDIR ? (bits & ~0o022) | 0o700 : (bits & 0o644) | 0o400
            }
            let mode = String(bits, radix: 8)
            let time = "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                let shownTime = relative.isEmpty && !includeRootTime ? "-" : time
                lines.append("\(relative)/ dir \(mode) \(shownTime)")
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
                for name in names { visit(path + "/" + name, relative.isEmpty ? name : relative + "/" + name) }
            case S_IFLNK:
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
                lines.append("\(relative) link -> \(target)")
            default:
                lines.append("\(relative) file \(mode) \(time) \(info.st_size) \(digest(path))")
            }
        }
        visit(root, "")
        return lines
    }

    /// A cheap content digest (FNV-1a over the bytes) for comparisons in tests.
    public static func digest(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "unreadable" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        data.withUnsafeBytes { raw in
            for byte in raw {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
        }
        return String(hash, radix: 16)
    }

    /// Every path under `root` (relative), including hidden ones.
    public static func allPaths(_ root: String) -> [String] {
        (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted()
    }
}
