import Foundation

/// An Xcode build setting written into a manifest, `$(PRODUCT_BUNDLE_IDENTIFIER)` or
/// `${PRODUCT_NAME:rfc1034identifier}`: Xcode replaces it when it builds the app, so an Info.plist
/// as it sits in a repository still holds the reference.
///
/// share knows one setting's value, `PRODUCT_BUNDLE_IDENTIFIER`, when the user gives the
/// application's identifier (`share types register --bundle-id`); every other reference stays as
/// written, and a value holding one is not used where an identifier or a name is expected.
public struct BuildSettingReference: Hashable, Sendable {
    /// The setting's name, `PRODUCT_BUNDLE_IDENTIFIER`.
    public let name: String
    /// The modifiers after the name (`rfc1034identifier` in `$(PRODUCT_NAME:rfc1034identifier)`).
    public let modifiers: [String]
    /// The reference as written, `$(PRODUCT_NAME)`.
    public let text: String

    /// The setting that holds the bundle identifier.
    public static let bundleIdentifierSetting = "PRODUCT_BUNDLE_IDENTIFIER"

    /// Every reference in a text, in order.
    public static func references(in text: String) -> [BuildSettingReference] {
        guard text.contains("$") else { return [] }
        var found: [BuildSettingReference] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index + 1 < scalars.count {
            guard scalars[index] == "$", scalars[index + 1] == "(" || scalars[index + 1] == "{" else {
                index += 1
                continue
            }
            let close: Unicode.Scalar = scalars[index + 1] == "(" ? ")" : "}"
            guard let end = scalars[(index + 2)...].firstIndex(of: close) else { break }
            var body = String(String.UnicodeScalarView(scalars[(index + 2)..<end]))
            var modifiers: [String] = []
            if let colon = body.firstIndex(of: ":") {
                modifiers = body[body.index(after: colon)...].split(separator: ":").map(String.init)
                body = String(body[..<colon])
            }
            if !body.isEmpty, body.unicodeScalars.allSatisfy({ $0 == "_" || isAlphanumeric($0) }) {
                found.append(
                    BuildSettingReference(
                        name: body, modifiers: modifiers,
                        text: String(String.UnicodeScalarView(scalars[index...end]))))
            }
            index = end + 1
        }
        return found
    }

    /// The text with every reference to a known setting replaced by its value (with the modifiers
    /// `lower`, `upper`, `rfc1034identifier` and `c99extidentifier` applied); other references stay.
    public static func expand(_ text: String, settings: [String: String]) -> String {
        var result = text
        for reference in references(in: text) {
            guard let value = settings[reference.name], let expanded = reference.apply(to: value) else { continue }
            result = result.replacingOccurrences(of: reference.text, with: expanded)
        }
        return result
    }

    /// `value` with the modifiers applied, or `nil` when a modifier is unknown.
    private func apply(to value: String) -> String? {
        var result = value
        for modifier in modifiers {
            switch modifier {
            case "lower": result = result.lowercased()
            case "upper": result = result.uppercased()
            case "rfc1034identifier":
                result = String(result.unicodeScalars.map { Self.isAlphanumeric($0) || $0 == "." ? Character($0) : "-" })
            case "c99extidentifier":
                result = String(result.unicodeScalars.map { Self.isAlphanumeric($0) ? Character($0) : "_" })
            default:
                return nil
            }
        }
        return result
    }

    /// ASCII letters and digits.
    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}
