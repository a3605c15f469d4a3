public import ShareWire
public import TypeRegistry

/// The application an import was (or is being) handed to.
public struct ImportApplication: Sendable, Hashable {
    /// `CFBundleIdentifier`.
    public var id: String
    /// The application's name (from its manifest: escape before printing).
    public var name: String
    /// The importer kind: `copy`, `move`, `unpack` or `command`.
    public var importerKind: String

    /// Creates a description.
    public init(id: String, name: String, importerKind: String) {
        self.id = id
        self.name = name
        self.importerKind = importerKind
    }
}

/// What became of one received document.
public struct ImportResult: Sendable {
    /// Where it went.
    public enum Outcome: Sendable, Hashable {
        /// Placed in the receive folder, at `path` (the default when no application takes it).
        case receiveFolder(path: String)
        /// Imported by the application: into `path` for `copy`, `move` and `unpack`; `nil` for a `command`.
        case imported(path: String?)
        /// The import failed or timed out: the document stays in the inbox.
        case kept(failure: String, timedOut: Bool)
    }

    /// The inbox entry (its identifier stays valid while the document is kept).
    public var entry: InboxEntry
    /// The resolved type identifier.
    public var type: String
    /// The application chosen, or `nil` when the receive folder was the choice.
    public var application: ImportApplication?
    /// Why no application was chosen (no handler, an unresolved or unsafe type, a program).
    public var receiveFolderReason: String?
    /// Where it went.
    public var outcome: Outcome
    /// What the user should know about its type (a contradicting name, a disguised program, …).
    public var warnings: [String]
    /// Set when it stays in the inbox because its content lacks the signature of the type its name
    /// gives: no importer ran.
    public var mismatch: ContentMismatch?

    /// Creates a result.
    public init(
        entry: InboxEntry, type: String, application: ImportApplication?, receiveFolderReason: String?,
        outcome: Outcome, warnings: [String]
    ) {
        self.entry = entry
        self.type = type
        self.application = application
        self.receiveFolderReason = receiveFolderReason
        self.outcome = outcome
        self.warnings = warnings
    }

    /// Whether the document left the inbox.
    public var succeeded: Bool {
        if case .kept = outcome { false } else { true }
    }

    /// Where the document is now, if it is a path on this machine: the receive folder, the
    /// application's folder, or the inbox when it was kept; `nil` after a command importer took it.
    public func path(inbox: Inbox) -> String? {
        switch outcome {
        case .receiveFolder(let path): path
        case .imported(let path): path
        case .kept: inbox.documentPath(of: entry)
        }
    }

    /// What the sender is told in the RECEIPT (docs/PROTOCOL.md §4): placed (with a display path),
    /// imported (with the application's name), or kept in the inbox (with why), without local paths
    /// beyond the receive folder and without the importer's output.
    public func receiptItem(home: String?) -> ReceiptItem {
        let name = application?.name ?? "the receiver"
        switch outcome {
        case .receiveFolder(let path): return ReceiptItem(.placed, DisplayPath.abbreviate(path, home: home))
        case .imported: return ReceiptItem(.imported, name)
        case .kept(_, let timedOut):
            if let mismatch { return ReceiptItem(.keptInInbox, mismatch.description) }
            if application == nil { return ReceiptItem(.keptInInbox, "it could not be placed in the receive folder") }
            if entry.needsPassword { return ReceiptItem(.keptInInbox, "\(name) needs the document's password") }
            return ReceiptItem(.keptInInbox, "\(name) \(timedOut ? "did not finish in time" : "could not import it")")
        }
    }

    /// The RECEIPT item for a document whose import is still running when the receipt must go.
    static func pendingReceiptItem(application: ImportApplication?) -> ReceiptItem {
        ReceiptItem(.keptInInbox, "still being imported by \(application?.name ?? "the receiver")")
    }
}
