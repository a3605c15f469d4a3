/// Decides whether a symbolic link inside a bundle stays inside it.
///
/// A purely lexical check is not enough: `B/s/up -> ../..` is fine on its own, but a link
/// `B/s/c -> up/../x` would leave `B` once `up` is followed. So the walk substitutes the targets of
/// the bundle's other links as it meets them, the way the kernel would, with a bound on the number
/// of substitutions (a loop counts as leaving).
///
/// Components are split on `/` scalars and compared byte for byte, as the kernel does (see
/// ``PathRules``). The walk is made twice, and a link must stay inside in both:
/// - looking links up **byte for byte**, as ext4 and every case-sensitive folder does (there a
///   folder `Up` and a link `up` are two different things, and the kernel walks into the folder);
/// - looking links up **ignoring case and Unicode form**, as a case-insensitive receive folder
///   (ext4 with casefold, a case-insensitive volume) does: there the kernel follows `Up` into the
///   link `up`. This walk is skipped when two links share a name ignoring case: such an offer cannot
///   be stored on a case-insensitive folder at all (its receiver refuses it), so only the first walk
///   describes a folder that can hold it.
public struct LinkResolver: Sendable {
    /// The most link substitutions one resolution may make (the kernel's own limit is 40).
    static let maxSubstitutions = 40

    private var exact: [PathRules.ExactKey: String] = [:]
    private var folded: [String: String] = [:]
    private var foldedIsAmbiguous = false

    /// An empty table of links.
    public init() {}

    /// Adds the link at `path` (a full path in the offer) pointing to `target`.
    public mutating func add(linkAt path: String, target: String) {
        exact[PathRules.ExactKey(path)] = target
        let key = PathRules.collisionKey(path)
        if folded.updateValue(target, forKey: key) != nil { foldedIsAmbiguous = true }
    }

    /// Whether the link at `linkPath` with `target` resolves to a location inside its bundle (the
    /// first component of `linkPath`) under both ways of matching names; used for offers and for
    /// extracted archives.
    public func staysInside(linkPath: String, target: String) -> Bool {
        guard walk(linkPath: linkPath, target: target, lookup: { exact[PathRules.ExactKey($0)] }) else { return false }
        if foldedIsAmbiguous { return true }
        return walk(linkPath: linkPath, target: target, lookup: { folded[PathRules.collisionKey($0)] })
    }

    private func walk(linkPath: String, target: String, lookup: (String) -> String?) -> Bool {
        var stack = PathRules.components(of: linkPath).dropLast().map(String.init)
        guard !stack.isEmpty else { return false }
        var pending = Array(PathRules.components(of: target, omittingEmpty: true).reversed())
        var substitutions = 0
        while let component = pending.popLast() {
            if PathRules.isDot(component) { continue }
            if PathRules.isDotDot(component) {
                if stack.count <= 1 { return false }
                stack.removeLast()
                continue
            }
            stack.append(String(component))
            if let next = lookup(stack.joined(separator: "/")) {
                substitutions += 1
                if substitutions > Self.maxSubstitutions || next.utf8.first == UInt8(ascii: "/") { return false }
                stack.removeLast()
                pending.append(contentsOf: PathRules.components(of: next, omittingEmpty: true).reversed())
            }
        }
        return true
    }
}
