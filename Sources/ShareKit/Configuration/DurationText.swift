/// Durations as users type them: `90s`, `10m`, `2h`, `1h30m`, or plain seconds.
public enum DurationText {
    /// Parses `text`; nil when it is not a positive duration of at most a week.
    public static func parse(_ text: String) -> Duration? {
        if let seconds = Int(text) { return (1...604_800).contains(seconds) ? .seconds(seconds) : nil }
        var total = 0
        var number = ""
        for character in text.lowercased() {
            if character.isNumber {
                number.append(character)
                continue
            }
            guard let value = Int(number) else { return nil }
            switch character {
            case "s": total += value
            case "m": total += value * 60
            case "h": total += value * 3600
            case "d": total += value * 86_400
            default: return nil
            }
            number = ""
        }
        guard number.isEmpty, (1...604_800).contains(total) else { return nil }
        return .seconds(total)
    }

    /// `10m`, `1h30m`, `45s`.
    public static func format(_ duration: Duration) -> String {
        let seconds = Int(duration.components.seconds)
        var parts: [String] = []
        if seconds >= 3600 { parts.append("\(seconds / 3600)h") }
        if seconds % 3600 >= 60 { parts.append("\(seconds % 3600 / 60)m") }
        if seconds % 60 > 0 || parts.isEmpty { parts.append("\(seconds % 60)s") }
        return parts.joined()
    }
}
