/// Everything `share types show ID` prints about a type.
public struct TypeExplanation: Hashable, Sendable {
    /// The type's record (identifier, parents, tags, description, origin).
    public let record: TypeRecord
    /// Every type it conforms to, depth-first in declared order.
    public let supertypes: [TypeIdentifier]
    /// Every chain of parents from the type to a root.
    public let conformanceChains: [[TypeIdentifier]]
    /// Who declares the type; the one in use is marked.
    public let declarers: [TypeDeclarer]
    /// The applications that take the type, ranked.
    public let handlers: HandlerRanking
    /// Conflicts concerning the type: competing declarations, conflicting owners, ties.
    public let conflicts: [String]

    /// Creates an explanation.
    public init(
        record: TypeRecord, supertypes: [TypeIdentifier], conformanceChains: [[TypeIdentifier]],
        declarers: [TypeDeclarer],
        handlers: HandlerRanking, conflicts: [String]
    ) {
        self.record = record
        self.supertypes = supertypes
        self.conformanceChains = conformanceChains
        self.declarers = declarers
        self.handlers = handlers
        self.conflicts = conflicts
    }
}
