/// The applications that can take a type, best first, with the reasons.
///
/// The order (``orderingRule``) is deterministic:
/// 1. specific claims before wildcard claims (`*`, `public.data`, `public.item`, `public.content`);
/// 2. rank: Owner, then Default (also when no rank is declared), then Alternate;
///    rank None and role None never handle and are listed in ``excluded``;
/// 3. specificity: a claim of the type itself (or its extension or MIME type) before a claim of
///    its parent, before its grandparent, … (a `public.png` handler beats a `public.image` one);
/// 4. the application that exports the type;
/// 5. the earlier registration;
/// 6. the application identifier, alphabetically ignoring case; then the claim's position.
///
/// Each application appears once, with its best claim.
public struct HandlerRanking: Hashable, Sendable {
    /// The ordering rule, for help texts and `share types show`.
    public static let orderingRule =
        "specific claims before wildcards; then rank (Owner, Default, Alternate; None never handles); "
        + "then specificity (the type itself before its parents); then the app that exports the type; "
        + "then the earlier registration; then the app identifier"

    /// The type ranked for.
    public let type: TypeIdentifier
    /// Applications that can take the type, best first.
    public let candidates: [HandlerCandidate]
    /// Applications whose matching claims have rank None or role None.
    public let excluded: [HandlerCandidate]
    /// Ties and conflicting owners, and which rule settled them.
    public let conflicts: [String]

    /// Creates a ranking.
    public init(type: TypeIdentifier, candidates: [HandlerCandidate], excluded: [HandlerCandidate], conflicts: [String])
    {
        self.type = type
        self.candidates = candidates
        self.excluded = excluded
        self.conflicts = conflicts
    }

    /// The chosen handler, if any.
    public var best: HandlerCandidate? { candidates.first }

    /// Whether `a` ranks before `b`.
    public static func precedes(_ a: HandlerCandidate, _ b: HandlerCandidate) -> Bool {
        if a.match.isWildcard != b.match.isWildcard { return !a.match.isWildcard }
        if a.rank != b.rank { return a.rank < b.rank }
        if a.match.distance != b.match.distance { return a.match.distance < b.match.distance }
        if a.declaresType != b.declaresType { return a.declaresType }
        if a.registeredAt != b.registeredAt { return a.registeredAt < b.registeredAt }
        let aID = a.applicationID.lowercased()
        let bID = b.applicationID.lowercased()
        if aID != bID { return aID < bID }
        return a.claim.index < b.claim.index
    }

    /// Which rule put `a` before `b`, when the first three (wildcard, rank, specificity) tie.
    static func tieBreak(_ a: HandlerCandidate, _ b: HandlerCandidate) -> String? {
        guard a.match.isWildcard == b.match.isWildcard, a.rank == b.rank, a.match.distance == b.match.distance else {
            return nil
        }
        if a.declaresType != b.declaresType { return "it exports the type" }
        if a.registeredAt != b.registeredAt { return "it was registered earlier" }
        return "its identifier sorts first"
    }
}
