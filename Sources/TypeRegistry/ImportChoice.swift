/// What to do with a received document.
public enum ImportChoice: Hashable, Sendable {
    /// Hand it to this application's importer.
    case application(HandlerCandidate)
    /// Leave it in the receive folder; no importer runs.
    case receiveFolder(ReceiveFolderReason)
    /// Keep it in the inbox: its content is not what its name says, so the application that
    /// imports the named type does not get it.
    case keepInInbox(ContentMismatch, passedOver: HandlerCandidate)
}

/// Why a document stays in the receive folder.
public enum ReceiveFolderReason: Hashable, Sendable, CustomStringConvertible {
    /// No registered application takes the type.
    case noHandler(TypeIdentifier)
    /// The type could not be determined (dynamic, or merely `public.data`).
    case unresolved(TypeIdentifier)
    /// The content is a program disguised as something else; the resolution's warnings say more.
    case unsafe(warnings: [String])

    /// A sentence for the user.
    public var description: String {
        switch self {
        case .noHandler(let type): "no registered application imports \(type)"
        case .unresolved(let type):
            "the type could not be determined (\(DynamicType.readableDescription(of: type) ?? type.rawValue))"
        case .unsafe(let warnings): warnings.first ?? "the content is not safe to import"
        }
    }
}
