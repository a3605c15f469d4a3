public import TypeRegistry

/// Where a document will go and why: its resolved type and the chosen handler.
public struct ImportPlan: Sendable {
    /// The registry's decision about the document's type.
    public var resolution: Resolution
    /// The application that imports it, or `nil` for the receive folder.
    public var handler: HandlerCandidate?
    /// Why it goes to the receive folder, when it does.
    public var receiveFolderReason: String?
    /// Why it stays in the inbox without an importer running (its content is not what its name
    /// says), when it does; ``handler`` is then nil.
    public var inboxReason: String?
    /// The mismatch behind ``inboxReason``.
    public var mismatch: ContentMismatch?
    /// Warnings to show (the resolution's, and why an application was passed over).
    public var warnings: [String]

    /// The application, as reported.
    public var application: ImportApplication? {
        handler.map {
            ImportApplication(id: $0.applicationID, name: $0.applicationName, importerKind: $0.importer?.kind ?? "none")
        }
    }
}
