/// Decides whether a symbolic link inside a bundle stays inside it.
///
/// A purely lexical check is not enough: `B/s/up -> ../..` is fine on its own, but a link
/// `B/s/c -> up/../x` would leave `B` once `up` is followed. So the walk substitutes the targets of
/// the bundle's other links as it meets them, the way the kernel would, with a bound on the number
/// of substitutions (a loop counts as leaving).
public enum LinkResolver {
    /// The most link substitutions one resolution may make (the kernel's own limit is 40).
    static let maxSubstitutions = 40

    /// Whether the link at `linkPath` with `target` resolves to a location inside its bundle (the
    /// first component of `linkPath`); used for offers and for extracted archives.
    /// - Parameter links: every link of the manifest, path to target.
    public static func staysInside(linkPath: String, target: String, links: [String: String]) -> Bool {
        var stack = linkPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().map(String.init)
        guard !stack.isEmpty else { return false }
        var pending = Array(target.split(separator: "/", omittingEmptySubsequences: true).reversed())
        var substitutions = 0
        while let component = pending.popLast() {
            if component == "." { continue }
            if component == ".." {
                if stack.count <= 1 { return false }
                stack.removeLast()
                continue
            }
            stack.append(String(component))
            if let next = links[stack.joined(separator: "/")] {
                substitutions += 1
                if substitutions > maxSubstitutions || next.utf8.first == UInt8(ascii: "/") { return false }
                stack.removeLast()
                pending.append(contentsOf: next.split(separator: "/", omittingEmptySubsequences: true).reversed())
            }
        }
        return true
    }
}
