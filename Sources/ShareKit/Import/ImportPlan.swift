public import TypeRegistry

/// Where a document will go and why: its resolved type and the chosen handler.
public struct ImportPlan: Sendable {
    /// The registry's decision about the document's type.
    public var resolution: Resolution
    /// The application that imports it, or `nil` for the receive folder.
    public var handler: HandlerCandidate?
    /// Why it goes to the receive folder, when it does.
    public var receiveFolderReason: String?
    /// Warnings to show (the resolution's, and why an application was passed over).
    public var warnings: [String]

    /// The application, as reported.
    public var application: ImportApplication? {
        handler.map {
            ImportApplication(id: $0.applicationID, name: $0.applicationName, importerKind: $0.importer?.kind ?? "none")
        }
    }
}
