import TypeRegistry

/// The CLI's JSON: TypeRegistry's ordered `JSONText`, so every command writes keys in the
/// documented order with one writer.
typealias JSON = JSONText

extension JSONText {
    /// Compact text (one line), for JSON Lines.
    func text() -> String { rendered(prettyPrinted: false) }

    /// Indented text.
    func pretty() -> String { rendered(prettyPrinted: true) }

    /// An integer from a 64-bit count.
    static func int(_ value: Int64) -> JSONText { .int(Int(value)) }
}
