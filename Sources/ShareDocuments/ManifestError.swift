/// Why a manifest (the list of entries of an offer) is refused.
///
/// Descriptions quote paths from the peer through ``DisplayText/escape(_:)``, so they are safe to
/// print.
public enum ManifestError: Error, Sendable, Hashable, CustomStringConvertible {
    case empty
    case tooManyEntries(count: Int, limit: Int)
    case tooManyItems(count: Int, limit: Int)
    case invalidPath(path: String, problem: PathProblem)
    case duplicatePath(path: String)
    case collidingPaths(path: String, other: String)
    case missingParent(path: String)
    case notContiguous(path: String)
    case invalidMode(path: String, mode: UInt16)
    case invalidTime(path: String)
    case sizeOnNonFile(path: String)
    case linkTargetOnNonLink(path: String)
    case typeOnNestedEntry(path: String)
    case invalidTypeIdentifier(path: String, identifier: String)
    case topLevelLink(path: String)
    case invalidLinkTarget(path: String)
    case linkLeavesBundle(path: String, target: String)
    case totalMismatch(declared: UInt64, actual: UInt64)
    case tooLarge(bytes: UInt64, limit: UInt64)
    case offerTooLarge(bytes: Int, limit: Int)
    case invalidNote(path: String, reason: String)
    /// The OFFER and ENTRIES frames carried more entries than the OFFER's `entryCount`.
    case moreEntriesThanAnnounced(announced: Int)

    public var description: String {
        func show(_ path: String) -> String { "'" + DisplayText.escape(path) + "'" }
        switch self {
        case .empty: return "the offer lists no files"
        case .tooManyEntries(let count, let limit):
            return "the offer lists \(DisplayText.grouped(count)) files, folders and links; one offer may hold "
                + "\(DisplayText.grouped(limit)): send fewer at once"
        case .tooManyItems(let count, let limit): return "the offer lists \(count) items (the limit is \(limit))"
        case .invalidPath(let path, let problem): return "\(show(path)) is not a safe name: \(problem)"
        case .duplicatePath(let path): return "\(show(path)) is listed twice"
        case .collidingPaths(let path, let other):
            return "\(show(path)) and \(show(other)) differ only in case or Unicode form, and the receiving folder "
                + "cannot hold both (it ignores case)"
        case .missingParent(let path): return "\(show(path)) is listed before (or without) its folder"
        case .notContiguous(let path): return "\(show(path)) is not listed with the rest of its item"
        case .invalidMode(let path, let mode):
            return "\(show(path)) has mode \(String(mode, radix: 8)); only permission bits (0...777) are allowed"
        case .invalidTime(let path): return "\(show(path)) has an invalid modification time"
        case .sizeOnNonFile(let path): return "\(show(path)) is not a file but declares a size"
        case .linkTargetOnNonLink(let path): return "\(show(path)) is not a link but declares a link target"
        case .typeOnNestedEntry(let path): return "\(show(path)) is inside a bundle but declares a type"
        case .invalidTypeIdentifier(let path, let identifier):
            return "\(show(path)) declares the invalid type identifier \(show(identifier))"
        case .topLevelLink(let path): return "\(show(path)) is a symbolic link outside any folder"
        case .invalidLinkTarget(let path): return "the link \(show(path)) has an empty, absolute or unsafe target"
        case .linkLeavesBundle(let path, let target):
            return "the link \(show(path)) points to \(show(target)), outside its folder"
        case .totalMismatch(let declared, let actual):
            return "the offer declares \(declared) bytes but its files add up to \(actual)"
        case .tooLarge(let bytes, let limit): return "the offer is \(bytes) bytes (the limit is \(limit))"
        case .offerTooLarge(let bytes, let limit):
            func size(_ count: Int) -> String { count >= 1 << 20 ? "\(count >> 20) MiB" : "\(count) bytes" }
            return "the list of files takes \(size(bytes)) (the limit is \(size(limit))): send fewer files at once"
        case .invalidNote(let path, let reason): return "the note \(show(path)) \(reason)"
        case .moreEntriesThanAnnounced(let announced):
            return "the offer announced \(DisplayText.grouped(announced)) \(announced == 1 ? "entry" : "entries") but lists more"
        }
    }
}
