import Foundation
public import ShareDocuments

import ShareSystem

#if canImport(Glibc)
import Glibc
#endif

/// The transfer history: `history.jsonl` in the state folder (`$XDG_STATE_HOME/share`), one
/// ``TransferRecord`` per line, appended by `share send` and `share receive` and listed by
/// `share history`.
///
/// Append-only and bounded: a line is only ever appended (one `write` under an `flock`, so several
/// processes can record at once); when an append would take the file past ``fileLimit``, the file
/// is renamed to `history.jsonl.1` (replacing the older one) and a new file is started. So at most
/// two files exist, at most twice ``fileLimit`` on disk, and at least the last ``fileLimit`` bytes
/// of history are kept. A record holds names, sizes, outcomes and places, never file contents.
public struct TransferHistory: Sendable {
    /// The size at which the file is rotated.
    public static let fileLimit = 1 << 20
    /// The file's name in the state folder.
    public static let fileName = "history.jsonl"

    /// The state folder.
    public let directory: String

    /// The history kept in `directory`.
    public init(directory: String) {
        self.directory = directory
    }

    /// The history of `paths` (its state folder).
    public init(paths: SharePaths) {
        self.init(directory: paths.stateDirectory)
    }

    /// The current file.
    public var path: String { directory + "/" + Self.fileName }
    /// The previous file, after a rotation.
    public var previousPath: String { path + ".1" }

    /// Appends `record`; returns the problem, if any (the history never makes a transfer fail).
    @discardableResult
    public func append(_ record: TransferRecord) -> ConfigurationError? {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(record) else {
            return .unwritable(path: path, reason: "cannot encode the record")
        }
        line.append(UInt8(ascii: "\n"))
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            return .unwritable(path: directory, reason: "\(error)")
        }
        let lockPath = directory + "/.history.lock"
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { return .unwritable(path: lockPath, reason: POSIX.errorText()) }
        defer { close(lock) }
        _ = flock(lock, LOCK_EX)
        var status = stat()
        if stat(path, &status) == 0, Int(status.st_size) + line.count > Self.fileLimit {
            guard rename(path, previousPath) == 0 else {
                return .unwritable(path: previousPath, reason: POSIX.errorText())
            }
        }
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return .unwritable(path: path, reason: POSIX.errorText()) }
        defer { close(fd) }
        // A line cut short (a crash in the middle of a write) must not swallow this one.
        var last: UInt8 = 0
        if fstat(fd, &status) == 0, status.st_size > 0, pread(fd, &last, 1, status.st_size - 1) == 1,
            last != UInt8(ascii: "\n")
        {
            line.insert(UInt8(ascii: "\n"), at: 0)
        }
        if let problem = line.withUnsafeBytes({ POSIX.writeAll(fd, $0) }) {
            return .unwritable(path: path, reason: POSIX.errorText(problem))
        }
        return nil
    }

    /// Records what a receiver's connection came to (nothing for connections that were not
    /// transfers); `configDirectory` holds the trust store that names verified peers.
    @discardableResult
    public func record(_ outcome: IncomingOutcome, configDirectory: String) -> ConfigurationError? {
        guard let record = TransferRecord(outcome, trust: try? TrustStore.load(from: configDirectory)) else {
            return nil
        }
        return append(record)
    }

    /// Records the results of sending `manifest` to `targets` (what the user named, in the order
    /// of `results`); `greeted` holds, in the same order, the receiver each send reached (nil when
    /// none answered), so that a send that did not complete keeps its receiver's key. Returns the
    /// first problem.
    @discardableResult
    public func record(
        _ results: [Result<SendReport, SendError>], to targets: [String], greeted: [GreetedReceiver?] = [],
        manifest: Manifest, configDirectory: String
    ) -> ConfigurationError? {
        let trust = try? TrustStore.load(from: configDirectory)
        let problems = results.indices.map { index in
            switch results[index] {
            case .success(let report): append(TransferRecord(report, manifest: manifest, trust: trust))
            case .failure(let error):
                append(
                    TransferRecord(
                        failedSend: manifest, to: targets[index], error: error,
                        greeted: index < greeted.count ? greeted[index] : nil, trust: trust))
            }
        }
        return problems.compactMap { $0 }.first
    }

    /// Records the sends of `manifest` to LocalSend devices; returns the first problem.
    @discardableResult
    public func record(
        localSend results: [Result<LocalSendReport, LocalSendError>], to targets: [LocalSendTarget], manifest: Manifest
    ) -> ConfigurationError? {
        zip(targets, results).map { append(TransferRecord(localSend: manifest, to: $0, result: $1)) }.compactMap { $0 }.first
    }

    /// Every record kept, oldest first, and how many lines could not be read (a line cut short by
    /// a crash, or one written by a newer version).
    public func records() throws(ConfigurationError) -> (records: [TransferRecord], unreadable: Int) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var records: [TransferRecord] = []
        var unreadable = 0
        for file in [previousPath, path] {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch CocoaError.fileReadNoSuchFile {
                continue
            } catch {
                throw .unreadable(path: file, reason: "\(error)")
            }
            for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
                if let record = try? decoder.decode(TransferRecord.self, from: line) {
                    records.append(record)
                } else {
                    unreadable += 1
                }
            }
        }
        return (records, unreadable)
    }
}
