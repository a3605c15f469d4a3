import Foundation

/// Helpers that read the loosely typed values `PropertyListSerialization` returns.
enum PlistValue {
    /// The value as a dictionary with string keys, or `nil`.
    static func dictionary(_ value: Any) -> [String: Any]? {
        if let dictionary = value as? [String: Any] { return dictionary }
        if let dictionary = value as? [AnyHashable: Any] {
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let key = key.base as? String else { return nil }
                result[key] = element
            }
            return result
        }
        return nil
    }

    /// The value as an array, or `nil`.
    static func array(_ value: Any) -> [Any]? {
        value as? [Any]
    }

    /// The value as a string, or `nil`.
    static func string(_ value: Any) -> String? {
        value as? String
    }

    /// Whether the value is a property-list boolean (`<true/>`, `<false/>`).
    static func isBoolean(_ value: Any) -> Bool {
        if type(of: value) == Bool.self { return true }
        if let number = value as? NSNumber, type(of: value) != Bool.self {
            let code = String(cString: number.objCType)
            return code == "c" || code == "B"
        }
        return false
    }

    /// The value as a number (integer or real), or `nil`; booleans are not numbers.
    static func number(_ value: Any) -> Double? {
        if isBoolean(value) { return nil }
        if let number = value as? NSNumber { return number.doubleValue }
        if let integer = value as? Int { return Double(integer) }
        if let real = value as? Double { return real }
        return nil
    }

    /// A short name of the value's kind for messages: `a string`, `an array`, ….
    static func kindName(_ value: Any) -> String {
        if isBoolean(value) { return "a boolean" }
        if value is String { return "a string" }
        if number(value) != nil { return "a number" }
        if dictionary(value) != nil { return "a dictionary" }
        if array(value) != nil { return "an array" }
        if value is Date { return "a date" }
        if value is Data { return "data" }
        return "an unknown value"
    }
}
