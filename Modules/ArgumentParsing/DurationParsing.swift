// MARK: - Durations on the command line

/// Parses durations as people type them: `90s`, `5m`, `1h`, `1h30m`, `250ms`; a bare
/// number is seconds. Zero and negative durations are refused, and so is any number
/// above `maximumComponent` (no arithmetic on what was typed can overflow).
public enum DurationParsing {
    /// The largest number one component may carry: a billion (31 years in seconds).
    static let maximumComponent = 1_000_000_000

    public static func parse(_ text: String) -> Duration? {
        let trimmed = String(text.filter { $0 != " " }).lowercased()
        guard !trimmed.isEmpty, trimmed.count <= 64 else { return nil }
        if let seconds = Int(trimmed) { return seconds > 0 && seconds <= maximumComponent ? .seconds(seconds) : nil }
        var total = Duration.zero
        var number = ""
        var unit = ""
        func flush() -> Bool {
            guard let value = Int(number), value <= maximumComponent, !unit.isEmpty else { return false }
            switch unit {
            case "ms": total += .milliseconds(value)
            case "s": total += .seconds(value)
            case "m": total += .seconds(value * 60)
            case "h": total += .seconds(value * 3600)
            case "d": total += .seconds(value * 86_400)
            default: return false
            }
            number = ""
            unit = ""
            return true
        }
        for character in trimmed {
            if character.isASCII, character.isNumber {
                if !unit.isEmpty { guard flush() else { return nil } }
                number.append(character)
            } else if character.isLetter {
                guard !number.isEmpty else { return nil }
                unit.append(character)
            } else {
                return nil
            }
        }
        guard flush(), total > .zero else { return nil }
        return total
    }
}
