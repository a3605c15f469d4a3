/// How strongly an application claims a document type (`LSHandlerRank`).
public enum HandlerRank: String, Hashable, Sendable, Codable, CaseIterable, Comparable {
    /// The application created the format and is its primary handler.
    case owner = "Owner"
    /// The application is a good default handler. This is the rank when none is declared.
    case `default` = "Default"
    /// The application is a secondary handler, used only when no better one exists.
    case alternate = "Alternate"
    /// The application declares the type but never handles it.
    case none = "None"

    /// Reads a rank case-insensitively; `nil` for anything else.
    /// - Parameter text: for example `Owner` or `owner`.
    public init?(declared text: String) {
        let lower = text.trimmingTypeWhitespace().lowercased()
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == lower }) else { return nil }
        self = match
    }

    /// Stronger ranks sort first: Owner < Default < Alternate < None.
    public static func < (lhs: HandlerRank, rhs: HandlerRank) -> Bool {
        lhs.order < rhs.order
    }

    private var order: Int {
        switch self {
        case .owner: 0
        case .default: 1
        case .alternate: 2
        case .none: 3
        }
    }
}
