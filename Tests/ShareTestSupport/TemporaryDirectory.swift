import Foundation

/// A fresh folder for one test, removed when the value is released (or with ``remove()``).
///
/// Each test uses its own folder (the machine's ext4 has no journal: creating many files right
/// after deleting many in the same place is slow, so tests never reuse folders).
public final class TemporaryDirectory: @unchecked Sendable {
    // @unchecked: immutable after init.
    /// The folder's absolute path.
    public let path: String

    /// Creates `/tmp/share-tests/<label>-<random>`.
    public init(_ label: String = "test") {
        let base = ProcessInfo.processInfo.environment["SHARE_TEST_TMP"] ?? "/tmp/share-tests"
        try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        var template = Array("\(base)/\(label)-XXXXXX".utf8CString)
        let result = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(result != nil, "cannot create a temporary folder under \(base)")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { remove() }

    /// A path inside the folder.
    public func at(_ relative: String) -> String { path + "/" + relative }

    /// Deletes the folder (making read-only subfolders writable first).
    public func remove() {
        _ = try? Process.run(URL(fileURLWithPath: "/bin/chmod"), arguments: ["-R", "u+rwX", path]).waitUntilExit()
        try? FileManager.default.removeItem(atPath: path)
    }
}
