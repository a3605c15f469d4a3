import Foundation
import ShareArchive
import ShareDocuments
public import TypeRegistry
import ShareSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Hands inbox entries to the application that imports their type, or to the receive folder.
///
/// For each entry: the type is resolved from the document's name, its first 4 KiB (never more;
/// a bundle by its extension) and the sender's declared type; ``TypeRegistry/importChoice(for:)``
/// picks the handler. An importer runs only when the resolution is safe
/// (``Resolution/isSafe``) and the content is not a program (``Resolution/isExecutable``);
/// otherwise the document goes to the receive folder with a warning. A document whose content
/// lacks the signature of the type its name gives (``Resolution/mismatch``) is not handed to that
/// type's application: it stays in the inbox, marked failed with the reason. Nothing received is ever
/// executed or opened: `command` importers are the application's own programs, given the
/// document's path as an argument.
///
/// The inbox copy is removed only after the handler succeeded. On failure or timeout the entry
/// stays, marked failed with the reason, for `share inbox import` to retry.
///
/// Password-protected documents: a `command` importer that exits with ``passwordExitStatus`` (77)
/// needs the document's password. The entry stays, marked ``InboxEntry/needsPassword``; a retry
/// given the password (``importEntry(_:password:cancellation:starting:)``) runs the importer with the
/// password as the only line of its standard input, so it is never in an argument list, the
/// environment or a file. Status 77 again means the password did not open the document.
public struct DocumentImporter: Sendable {
    /// The inbox the entries are in.
    public let inbox: Inbox
    /// The registry that resolves types and chooses handlers.
    public let registry: TypeRegistry
    /// Where documents no application takes are placed.
    public let receiveFolder: String
    /// The caller's environment; importers get `PATH`, `HOME`, the locale and `XDG_*` from it.
    public let environment: [String: String]
    /// Bounds for `unpack` (the expanded size is further limited by the free space).
    var archiveLimits = ArchiveLimits.standard
    /// The receive folder as a running receiver opened it (nil: by its path, as `share inbox import` does).
    var openedReceiveFolder: ReceiveFolder?
    /// Place a document in the receive folder of the receiver that kept it (``InboxEntry/receiveFolder``),
    /// when it recorded one, rather than in ``receiveFolder`` (`share inbox import` without `--dir`).
    public var prefersEntryReceiveFolder = false

    /// The Landlock ABI `command` importers are confined with: the kernel's (tests pretend older
    /// kernels with a lower one; below 1 the importer runs unconfined, with a warning).
    var landlockABI = LandlockRuleset.kernelABI

    /// Bytes of content read to resolve a file's type.
    public static let sniffLength = 4096

    /// The exit status with which a `command` importer says it needs the document's password (or
    /// that the one it was given is wrong): 77, `EX_NOPERM` of `sysexits.h`.
    public static let passwordExitStatus: Int32 = 77

    /// The longest password passed to an importer, in bytes.
    public static let maximumPasswordLength = 1024

    /// Creates an importer.
    public init(inbox: Inbox, registry: TypeRegistry, receiveFolder: String, environment: [String: String]) {
        self.inbox = inbox
        self.registry = registry
        self.receiveFolder = receiveFolder
        self.environment = environment
    }

    /// Decides where an entry's document goes, without moving anything.
    public func plan(_ entry: InboxEntry) -> ImportPlan {
        Self.plan(
            forItemAt: inbox.documentPath(of: entry), name: entry.name, declaredType: entry.declaredType,
            registry: registry)
    }

    /// Decides where a document would go: its type from its name, its first 4 KiB (a folder: its
    /// extension) and the declared type; then the registry's handler, unless the type is unsafe or
    /// unresolved, or the content is a program.
    /// - Parameters:
    ///   - path: the document (a file or a folder), not followed if it is a link.
    ///   - name: its name as received.
    ///   - declaredType: the sender's declared type, if any.
    ///   - registry: the registry to ask.
    public static func plan(
        forItemAt path: String, name: String, declaredType: String?, registry: TypeRegistry
    )
        -> ImportPlan
    {
        var info = stat()
        let isDirectory = lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
        let content = isDirectory ? nil : readPrefix(path)
        let resolution = registry.resolve(
            ResolutionRequest(fileName: name, isDirectory: isDirectory, declaredType: declaredType, content: content))
        var warnings = resolution.warnings
        switch registry.importChoice(for: resolution) {
        case .application(let handler):
            if resolution.isExecutable {
                let reason = "the content is a program; programs are never given to an application"
                warnings.append("\(name): \(reason), so \(handler.applicationName) did not get it")
                return ImportPlan(resolution: resolution, handler: nil, receiveFolderReason: reason, warnings: warnings)
            }
            return ImportPlan(resolution: resolution, handler: handler, receiveFolderReason: nil, warnings: warnings)
        case .receiveFolder(let reason):
            if case .unsafe = reason, warnings.isEmpty { warnings.append("\(name): \(reason)") }
            return ImportPlan(
                resolution: resolution, handler: nil, receiveFolderReason: reason.description, warnings: warnings)
        case .keepInInbox(let mismatch, let passedOver):
            // The reason is the message; the same words as a warning would only repeat it.
            warnings.removeAll { $0.contains(mismatch.description) }
            return ImportPlan(
                resolution: resolution, handler: nil, receiveFolderReason: nil,
                inboxReason: "\(mismatch), so \(passedOver.applicationName) did not get it", mismatch: mismatch,
                warnings: warnings)
        }
    }

    /// Imports one entry: resolves its type, runs its handler, then removes the entry, or marks
    /// it failed when the handler failed.
    /// - Parameters:
    ///   - idOrPrefix: the entry's identifier (or a unique prefix).
    ///   - password: the document's password, for a `command` importer (at most
    ///     ``maximumPasswordLength`` bytes, no line break); `nil` when the user gave none.
    ///   - cancellation: stops a running importer command early (the entry stays, failed).
    ///   - starting: called once the handler is chosen, before it runs.
    /// - Returns: what became of the document.
    /// - Throws: ``InboxError`` when the entry does not exist, is damaged, or another process is importing it.
    public func importEntry(
        _ idOrPrefix: String, password: [UInt8]? = nil, cancellation: ImportCancellation? = nil,
        starting: (@Sendable (ImportPlan) -> Void)? = nil
    ) throws(InboxError) -> ImportResult {
        let id = try inbox.resolve(idOrPrefix)
        let lock = try inbox.lock(id)
        defer { lock.release() }
        var entry = try inbox.entry(id)
        if let interrupted = interruptedHandoff(&entry) { return interrupted }
        let plan = plan(entry)
        starting?(plan)
        entry.resolvedType = plan.resolution.type.rawValue
        if !isOneRename(plan, entry: entry) {
            entry.handoff = plan.application?.name ?? "the receive folder"
            try? inbox.save(entry)
        }
        TestPause.at("import")
        let outcome: ImportResult.Outcome
        var warnings = plan.warnings
        do {
            outcome = try run(plan, entry: entry, password: password, cancellation: cancellation, warnings: &warnings)
        } catch {
            entry.handoff = nil
            entry.state = .failed
            entry.failure = error.message
            entry.needsPassword = error.needsPassword
            entry.attempts += 1
            entry.lastAttemptAt = Date()
            try? inbox.save(entry)
            var result = ImportResult(
                entry: entry, type: plan.resolution.type.rawValue, application: plan.application,
                receiveFolderReason: plan.receiveFolderReason,
                outcome: .kept(failure: error.message, timedOut: error.timedOut),
                warnings: warnings)
            result.mismatch = plan.mismatch
            return result
        }
        TestPause.at("imported")
        do {
            try inbox.removeFolder(id)
        } catch {
            warnings.append("the inbox copy could not be removed: \(error)")
        }
        return ImportResult(
            entry: entry, type: plan.resolution.type.rawValue, application: plan.application,
            receiveFolderReason: plan.receiveFolderReason, outcome: outcome, warnings: warnings)
    }

    /// What an import interrupted by the death of its process left (docs/ARCHITECTURE.md, "Import"),
    /// settled without ever handing the document over twice: a document gone from its entry was
    /// handed over (a rename took it), so the entry is removed; a document still there after a
    /// handoff of more than one step (``InboxEntry/handoff``) may have reached its handler, so the
    /// entry is marked failed for its user to decide. Returns nil when the import can run as usual.
    private func interruptedHandoff(_ entry: inout InboxEntry) -> ImportResult? {
        var info = stat()
        let present = lstat(inbox.documentPath(of: entry), &info) == 0
        let handler = entry.handoff
        if present {
            guard let handler else { return nil }
            let failure =
                "the receiver stopped while handing it to \(handler); if \(handler) does not have it, "
                + "import it again with 'share inbox import \(entry.id)'"
            entry.handoff = nil
            entry.state = .failed
            entry.failure = failure
            try? inbox.save(entry)
            return ImportResult(
                entry: entry, type: entry.resolvedType ?? "", application: nil, receiveFolderReason: nil,
                outcome: .kept(failure: failure, timedOut: false), warnings: [])
        }
        guard entry.state == .pending else { return nil }
        try? inbox.removeFolder(entry.id)
        let outcome: ImportResult.Outcome =
            handler == nil || handler == "the receive folder"
            ? .receiveFolder(path: placementFolder(for: entry) + "/" + entry.name) : .imported(path: nil)
        return ImportResult(
            entry: entry, type: entry.resolvedType ?? "", application: nil, receiveFolderReason: nil,
            outcome: outcome, warnings: [])
    }

    /// The receive folder `entry` goes to when no application takes it.
    private func placementFolder(for entry: InboxEntry) -> String {
        openedReceiveFolder?.path ?? (prefersEntryReceiveFolder ? entry.receiveFolder ?? receiveFolder : receiveFolder)
    }

    /// Whether handing the document over is one rename on one filesystem (the receive folder or a
    /// `move` importer on the inbox's filesystem), which happened or did not: repeated after an
    /// interruption, it cannot make a second copy.
    private func isOneRename(_ plan: ImportPlan, entry: InboxEntry) -> Bool {
        var destination = placementFolder(for: entry)
        if let handler = plan.handler {
            guard case .move(let folder)? = handler.importer else { return false }
            destination = folder
        }
        var source = stat()
        var target = stat()
        return stat(inbox.folder(of: entry.id), &source) == 0 && stat(destination, &target) == 0
            && source.st_dev == target.st_dev
    }

    // MARK: - Handlers

    private func run(
        _ plan: ImportPlan, entry: InboxEntry, password: [UInt8]?, cancellation: ImportCancellation?,
        warnings: inout [String]
    ) throws(ImportFailure)
        -> ImportResult.Outcome
    {
        let folderFD = open(inbox.folder(of: entry.id), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folderFD >= 0 else { throw ImportFailure("its inbox folder cannot be opened: \(POSIX.errorText())") }
        defer { close(folderFD) }
        var info = stat()
        guard fstatat(folderFD, entry.name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw ImportFailure("the document is missing from its inbox folder")
        }
        let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        let attributes = entry.folderMode.map {
            Placement.FolderAttributes(
                mode: $0, seconds: entry.folderModificationSeconds ?? 0,
                nanoseconds: entry.folderModificationNanoseconds ?? 0)
        }
        if let reason = plan.inboxReason { throw ImportFailure(reason) }
        guard let handler = plan.handler else {
            do {
                if let openedReceiveFolder {
                    return .receiveFolder(
                        path: try Placement.place(
                            entry.name, from: folderFD, into: openedReceiveFolder, preferred: entry.name,
                            folderAttributes: attributes))
                }
                let folder = prefersEntryReceiveFolder ? entry.receiveFolder ?? receiveFolder : receiveFolder
                let path = try Placement.place(
                    entry.name, from: folderFD, into: folder, mode: .move, preferred: entry.name,
                    folderAttributes: attributes)
                return .receiveFolder(path: path)
            } catch {
                throw ImportFailure("it could not be placed in the receive folder: \(error.message)")
            }
        }
        let app = handler.applicationName
        guard let importer = handler.importer else { throw ImportFailure("\(app) has no importer") }
        do {
            switch importer {
            case .copy(let folder):
                return .imported(
                    path: try Placement.place(
                        entry.name, from: folderFD, into: folder, mode: .copy, preferred: entry.name,
                        folderAttributes: attributes))
            case .move(let folder):
                return .imported(
                    path: try Placement.place(
                        entry.name, from: folderFD, into: folder, mode: .move, preferred: entry.name,
                        folderAttributes: attributes))
            case .unpack(let folder):
                if isDirectory {
                    return .imported(
                        path: try Placement.place(
                            entry.name, from: folderFD, into: folder, mode: .move, preferred: entry.name,
                            folderAttributes: attributes))
                }
                return .imported(path: try unpack(entry, into: folder))
            case .command(let command):
                try runCommand(
                    command, entry: entry, type: plan.resolution.type, password: password, cancellation: cancellation,
                    warnings: &warnings)
                return .imported(path: nil)
            }
        } catch {
            throw ImportFailure(
                "\(app): \(error.message)", timedOut: error.timedOut, needsPassword: error.needsPassword)
        }
    }

    /// Extracts an archive into a scratch folder beside the store, then renames the document
    /// (the archive's single top folder, or everything) into the store as the archive's name
    /// without its extension, or the next free name.
    private func unpack(_ entry: InboxEntry, into folder: String) throws(ImportFailure) -> String {
        let scratch = try ScratchFolder(in: folder)
        defer { scratch.discard() }
        let work = "contents"
        guard mkdirat(scratch.fd, work, 0o700) == 0 else {
            throw ImportFailure("cannot write into '\(folder)': \(POSIX.errorText())")
        }
        var limits = archiveLimits
        var space = statvfs()
        if fstatvfs(scratch.fd, &space) == 0 {
            let free = UInt64(space.f_bavail) * UInt64(space.f_frsize)
            limits.maxTotalBytes = min(limits.maxTotalBytes, free > 64 << 20 ? free - (64 << 20) : 0)
        }
        let summary: ExtractionSummary
        do {
            summary = try ArchiveExtractor.extract(
                archiveAt: inbox.documentPath(of: entry), into: scratch.path + "/" + work, limits: limits)
        } catch {
            throw ImportFailure("cannot unpack '\(entry.name)': \(error)")
        }
        try scratch.sync()
        var stem = AlternativeName.split(entry.name).stem
        if stem.isEmpty || stem.hasPrefix(".") { stem = "Document" }
        if summary.topLevelNames.count == 1, let top = summary.topLevelNames.first {
            let workFD = openat(scratch.fd, work, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard workFD >= 0 else { throw ImportFailure("cannot open '\(scratch.path)': \(POSIX.errorText())") }
            defer { close(workFD) }
            var info = stat()
            if fstatat(workFD, top, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
                let name = try Placement.renameNoReplace(
                    top, from: workFD, preferred: stem, into: scratch.destinationFD, folder: folder)
                _ = fsync(scratch.destinationFD)
                return folder + "/" + name
            }
        }
        let name = try scratch.moveIntoPlace(work, preferred: stem)
        _ = fsync(scratch.destinationFD)
        return folder + "/" + name
    }

    /// Runs a `command` importer confined by its ``ImporterSandbox``: its store (`Folder`) is created
    /// when missing, its scratch folder is its `TMPDIR` and is removed afterwards.
    private func runCommand(
        _ command: ImporterCommand, entry: InboxEntry, type: TypeIdentifier, password: [UInt8]?,
        cancellation: ImportCancellation?, warnings: inout [String]
    ) throws(ImportFailure) {
        let document = inbox.documentPath(of: entry)
        if let store = command.workingDirectory {
            do {
                try StagingArea.createDirectories(store)
            } catch {
                throw ImportFailure("cannot use its folder '\(store)': \(error.reason)")
            }
        }
        let sandbox = try ImporterSandbox(
            abi: landlockABI, document: document, store: command.workingDirectory,
            temporaryFolder: environment["TMPDIR"])
        defer { sandbox.discard() }
        if let warning = sandbox.warning { warnings.append(warning) }
        var variables = ImporterProcess.environment(from: environment)
        variables["TMPDIR"] = sandbox.scratch
        var input = password.map { $0 + [0x0A] }
        defer {
            // Best effort: no copy of the password outlives the import.
            if var bytes = input {
                input = nil
                for index in bytes.indices { bytes[index] = 0 }
            }
        }
        let result = ImporterProcess.run(
            argv: command.argv(filePath: document, type: type), workingDirectory: command.workingDirectory,
            environment: variables, timeout: command.timeout, sandbox: sandbox, cancellation: cancellation,
            input: input)
        var detail = result.lastLine.map { ": \($0)" } ?? ""
        if sandbox.isConfined, ImporterSandbox.mentionsDenial(result.stderr + result.stdout) {
            detail += " " + sandbox.confinementNote
        }
        switch result.termination {
        case .exited(0):
            return
        case .exited(Self.passwordExitStatus):
            throw ImportFailure(
                password == nil
                    ? "the document is protected by a password; 'share inbox import \(entry.id)' asks for it"
                    : "the password given does not open the document",
                needsPassword: true)
        case .exited(let status):
            throw ImportFailure("its importer failed (exit status \(status))\(detail)")
        case .signaled(let signal):
            throw ImportFailure("its importer was killed by signal \(signal)\(detail)")
        case .timedOut:
            throw ImportFailure(
                "its importer did not finish within \(Self.seconds(command.timeout)) and was stopped", timedOut: true)
        case .couldNotStart(let reason):
            throw ImportFailure("its importer could not be started: \(reason)")
        case .cancelled:
            throw ImportFailure("its importer was stopped because the receiver stopped")
        }
    }

    /// `10 s`, `2.5 s`.
    public static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    /// The first ``sniffLength`` bytes of a file (not following links), or `nil` when unreadable.
    static func readPrefix(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var buffer = [UInt8](repeating: 0, count: sniffLength)
        var total = 0
        while total < sniffLength {
            let count = buffer.withUnsafeMutableBytes { raw in
                POSIX.readSome(fd, UnsafeMutableRawBufferPointer(rebasing: raw[total...]))
            }
            if count <= 0 { break }
            total += count
        }
        return Array(buffer[0..<total])
    }
}
