/// The applications that can take a type, best first, with the reasons.
///
/// The order (``orderingRule``) is deterministic:
/// 1. specific claims before wildcard claims (`*`, `public.data`, `public.item`, `public.content`);
/// 2. specificity: a claim of the type itself (or its extension or MIME type) before a claim of
///    its parent, before its grandparent, … (a `public.png` handler beats a `public.image` one,
///    and an app that claims its own package type beats one claiming `public.directory`), whatever
///    their ranks: LaunchServices binds the most specific claimed type of the conformance chain;
/// 3. rank, between claims equally specific: Owner, then Default (also when no rank is declared),
///    then Alternate; rank None and role None never handle and are listed in ``excluded``;
/// 4. the application whose exported declaration of the type is the one in use;
/// 5. the earlier registration;
/// 6. the application identifier, alphabetically ignoring case; then the claim's position.
///
/// Each application appears once, with its best claim.
public struct HandlerRanking: Hashable, Sendable {
    /// The ordering rule, for help texts and `share types show`.
    public static let orderingRule =
        "specific claims before wildcards; then specificity (the type itself before its parents); "
        + "then rank (Owner, Default, Alternate; None never handles); then the app whose exported declaration "
        + "of the type is in use; then the earlier registration; then the app identifier"

    /// The type ranked for.
    public let type: TypeIdentifier
    /// Applications that can take the type, best first.
    public let candidates: [HandlerCandidate]
    /// Applications whose matching claims have rank None or role None.
    public let excluded: [HandlerCandidate]
    /// Ties and conflicting owners, and which rule settled them.
    public let conflicts: [String]
    /// For each candidate after the first, the rule that put the one before it first, as
    /// ``decision(_:_:type:)`` words it (aligned with ``candidates``; empty for the first).
    public let decisions: [String]

    /// Creates a ranking; ``decisions`` are worked out from the candidates' order.
    public init(type: TypeIdentifier, candidates: [HandlerCandidate], excluded: [HandlerCandidate], conflicts: [String])
    {
        self.type = type
        self.candidates = candidates
        self.excluded = excluded
        self.conflicts = conflicts
        self.decisions =
            candidates.indices.map { index in
                index == 0 ? "" : Self.decision(candidates[index - 1], candidates[index], type: type).sentence
            }
    }

    /// The chosen handler, if any.
    public var best: HandlerCandidate? { candidates.first }

    /// Whether `a` ranks before `b`.
    public static func precedes(_ a: HandlerCandidate, _ b: HandlerCandidate) -> Bool {
        if a.match.isWildcard != b.match.isWildcard { return !a.match.isWildcard }
        if a.match.distance != b.match.distance { return a.match.distance < b.match.distance }
        if a.rank != b.rank { return a.rank < b.rank }
        if a.declaresType != b.declaresType { return a.declaresType }
        if a.registeredAt != b.registeredAt { return a.registeredAt < b.registeredAt }
        let aID = a.applicationID.lowercased()
        let bID = b.applicationID.lowercased()
        if aID != bID { return aID < bID }
        return a.claim.index < b.claim.index
    }

    /// The rule that puts `a` before `b` (``precedes(_:_:)`` is true), and a sentence saying so.
    public static func decision(_ a: HandlerCandidate, _ b: HandlerCandidate, type: TypeIdentifier) -> (
        rule: String, sentence: String
    ) {
        if a.match.isWildcard != b.match.isWildcard {
            return ("wildcard", "specific claims before wildcards: \(b.applicationID) claims \(b.match)")
        }
        if a.match.distance != b.match.distance {
            return (
                "specificity",
                "specificity: \(a.applicationID) claims \(a.match), more specific than \(b.applicationID)'s \(b.match), "
                    + "whatever the ranks (\(a.rank.rawValue), \(b.rank.rawValue))"
            )
        }
        if a.rank != b.rank {
            return ("rank", "rank: \(a.rank.rawValue) before \(b.rank.rawValue), both claiming \(a.match)")
        }
        if let reason = tieBreak(a, b, type: type) { return ("tie-break", "tie at rank \(a.rank.rawValue): \(reason)") }
        return ("claim order", "the earlier claim")
    }

    /// Why `a` wins over `b` when the wildcard, specificity and rank rules tie; `nil` when they do not.
    static func tieBreak(_ a: HandlerCandidate, _ b: HandlerCandidate, type: TypeIdentifier) -> String? {
        guard a.match.isWildcard == b.match.isWildcard, a.rank == b.rank, a.match.distance == b.match.distance else {
            return nil
        }
        if a.declaresType != b.declaresType {
            return b.exportsType
                ? "both export \(type); \(a.applicationID)'s declaration is the one in use (registered first)"
                : "\(a.applicationID) exports \(type) and \(b.applicationID) does not"
        }
        if a.registeredAt != b.registeredAt { return "\(a.applicationID) was registered earlier" }
        if a.applicationID.lowercased() != b.applicationID.lowercased() {
            return "\(a.applicationID)'s identifier sorts first"
        }
        return "its claim comes first in the manifest"
    }
}
