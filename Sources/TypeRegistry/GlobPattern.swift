/// fnmatch-style matching of one filename against one pattern (`*`, `?`, `[a-z]`, `[!…]`).
enum GlobPattern {
    /// Whether the pattern contains a wildcard at all.
    static func hasWildcard(_ pattern: String) -> Bool {
        pattern.utf8.contains { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "[") }
    }

    /// The literal suffix of a `*suffix` pattern with no other wildcard, or `nil`.
    static func simpleSuffix(_ pattern: String) -> String? {
        guard pattern.utf8.first == UInt8(ascii: "*") else { return nil }
        let rest = String(pattern.dropFirst())
        guard !rest.isEmpty, !hasWildcard(rest) else { return nil }
        return rest
    }

    /// Whether the whole name matches the pattern.
    static func matches(_ name: [Character], _ pattern: [Character]) -> Bool {
        var n = 0
        var p = 0
        var starP = -1
        var starN = 0
        while n < name.count {
            if p < pattern.count {
                switch pattern[p] {
                case "*":
                    starP = p
                    starN = n
                    p += 1
                    continue
                case "?":
                    n += 1
                    p += 1
                    continue
                case "[":
                    if let (matched, next) = matchClass(name[n], pattern, p) {
                        if matched {
                            n += 1
                            p = next
                            continue
                        }
                    } else if name[n] == "[" {
                        n += 1
                        p += 1
                        continue
                    }
                default:
                    if pattern[p] == name[n] {
                        n += 1
                        p += 1
                        continue
                    }
                }
            }
            guard starP >= 0 else { return false }
            starN += 1
            n = starN
            p = starP + 1
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }

    /// Matches a character class starting at `pattern[start] == "["`; `nil` if the class is unterminated.
    private static func matchClass(_ character: Character, _ pattern: [Character], _ start: Int) -> (Bool, Int)? {
        var index = start + 1
        var negate = false
        if index < pattern.count && (pattern[index] == "!" || pattern[index] == "^") {
            negate = true
            index += 1
        }
        var matched = false
        var first = true
        while index < pattern.count {
            let current = pattern[index]
            if current == "]" && !first {
                return (matched != negate, index + 1)
            }
            first = false
            if index + 2 < pattern.count && pattern[index + 1] == "-" && pattern[index + 2] != "]" {
                if current <= character && character <= pattern[index + 2] { matched = true }
                index += 3
            } else {
                if current == character { matched = true }
                index += 1
            }
        }
        return nil
    }
}
