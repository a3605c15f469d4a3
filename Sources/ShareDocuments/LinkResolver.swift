/// Decides whether a symbolic link inside a bundle stays inside it.
///
/// A purely lexical check is not enough: `B/s/up -> ../..` is fine on its own, but a link
/// `B/s/c -> up/../x` would leave `B` once `up` is followed. So the walk substitutes the targets of
/// the bundle's other links as it meets them, the way the kernel would, with a bound on the number
/// of substitutions (a loop counts as leaving).
///
/// Components are split on `/` scalars and compared byte for byte, as the kernel does (see
/// ``PathRules``). Links are looked up by their collision key, ignoring case and Unicode form: on a
/// case-insensitive receive folder (ext4 with casefold, a mounted case-insensitive volume) the
/// kernel follows `Up` into the link `up`, so the walk must too. On a case-sensitive folder that
/// name does not exist (no other entry may share the key), so the kernel's walk stops there and
/// following the link costs nothing.
public enum LinkResolver {
    /// The most link substitutions one resolution may make (the kernel's own limit is 40).
    static let maxSubstitutions = 40

    /// Whether the link at `linkPath` with `target` resolves to a location inside its bundle (the
    /// first component of `linkPath`); used for offers and for extracted archives.
    /// - Parameter links: every link of the manifest, by the ``PathRules/collisionKey(_:)`` of its
    ///   path, to its target.
    public static func staysInside(linkPath: String, target: String, links: [String: String]) -> Bool {
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
            if let next = links[PathRules.collisionKey(stack.joined(separator: "/"))] {
                substitutions += 1
                if substitutions > maxSubstitutions || next.utf8.first == UInt8(ascii: "/") { return false }
                stack.removeLast()
                pending.append(contentsOf: PathRules.components(of: next, omittingEmpty: true).reversed())
            }
        }
        return true
    }
}
