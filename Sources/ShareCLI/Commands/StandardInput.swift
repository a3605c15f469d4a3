import Foundation
import ShareDocuments
import ShareKit
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `-` among the paths of `share send`, with `--name NAME`: standard input, sent as one file
/// called NAME (spooled first, see ``InputSpool``).
struct StandardInput: Sendable {
    /// The name the file gets on the receiver.
    let name: String

    /// Nil without `-`; a usage error for `-` without `--name`, `--name` without `-`, two `-`,
    /// or a name that is not one file name.
    init?(_ parsed: ParsedArguments) throws(UsageError) {
        let dashes = parsed.positionals.filter { $0 == "-" }.count
        guard let name = parsed.value("name") else {
            if dashes > 0 {
                throw parsed.usageError(
                    "Sending standard input ('-') needs --name <name>: the name it gets on the receiver")
            }
            return nil
        }
        if dashes == 0 {
            if parsed.value("text") != nil { return nil }  // --name names the text (``TextNote``)
            throw parsed.usageError("--name names standard input or --text; give '-' among the paths, or --text")
        }
        if dashes > 1 { throw parsed.usageError("Standard input ('-') can be sent only once") }
        try Self.checkFileName(name, parsed)
        try Self.checkAccepted(name, parsed)
        self.name = name
    }

    /// A usage error when `name` is not one file name.
    static func checkFileName(_ name: String, _ parsed: ParsedArguments) throws(UsageError) {
        if name.isEmpty || name == "." || name == ".." || name.contains("/") || name.contains("\0") {
            throw parsed.usageError("The name '\(name)' is not a file name (no '/', not '.' or '..')")
        }
        if name.utf8.count > 255 { throw parsed.usageError("The name '\(name)' is longer than 255 bytes") }
    }

    /// A usage error when the receiver would refuse `name` (docs/PROTOCOL.md §4: control
    /// characters, only dots or white space, a shell's `~`), said before anything is read.
    static func checkAccepted(_ name: String, _ parsed: ParsedArguments) throws(UsageError) {
        if let problem = PathRules.problem(in: name) {
            throw parsed.usageError(
                "The name '\(DisplayText.escape(name))' would be refused by the receiver: \(problem); choose another")
        }
    }

    /// Reads standard input to its end into a private temporary file named ``name``. Until
    /// ``Spooled/remove()``, an interrupt (SIGINT, SIGTERM, SIGHUP) deletes it first, then does what
    /// it would have done (end the process, or cancel the send).
    func spool(environment: [String: String]) throws(CLIError) -> Spooled {
        let temporary = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        let folder = Mutex<String?>(nil)
        let watcher = SignalWatcher(cleanupOn: [SIGINT, SIGTERM, SIGHUP]) { _ in
            if let folder = folder.withLock({ $0 }) { InputSpool.removeFolder(folder) }
        }
        do {
            let spool = try InputSpool(name: name, temporaryDirectory: temporary) { created in
                folder.withLock { $0 = created }
            }
            return Spooled(spool: spool, watcher: watcher)
        } catch {
            watcher.cancel()
            throw CLIError(error.description)
        }
    }

    /// Standard input, spooled.
    final class Spooled: Sendable {
        let spool: InputSpool
        let watcher: SignalWatcher

        init(spool: InputSpool, watcher: SignalWatcher) {
            self.spool = spool
            self.watcher = watcher
        }

        /// The spooled file.
        var path: String { spool.path }

        /// Deletes the file.
        func remove() {
            watcher.cancel()
            spool.remove()
        }
    }
}
