/// What an application does with a document type (`CFBundleTypeRole`).
public enum HandlerRole: String, Hashable, Sendable, Codable, CaseIterable {
    /// The application reads and writes the type.
    case editor = "Editor"
    /// The application only reads the type. This is the role when none is declared.
    case viewer = "Viewer"
    /// The application provides runtime services for the type.
    case shell = "Shell"
    /// The application declares information about the type but cannot open it; never a handler.
    case none = "None"
    /// A Quick Look generator (macOS); never a handler here.
    case quickLookGenerator = "QLGenerator"

    /// Reads a role case-insensitively; `nil` for anything else.
    /// - Parameter text: for example `Editor` or `viewer`.
    public init?(declared text: String) {
        let lower = text.trimmingTypeWhitespace().lowercased()
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == lower }) else { return nil }
        self = match
    }

    /// Whether an application with this role can be handed a document.
    public var canHandle: Bool { self == .editor || self == .viewer || self == .shell }
}
