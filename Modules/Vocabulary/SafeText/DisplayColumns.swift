import Foundation

// MARK: - DisplayColumns

/// Shelf's one width rule, in terminal columns: how many columns text takes, and how
/// wide the terminal is taken to be. Every table, progress bar, help column and frame
/// counts with it, so a CJK title, an emoji or a combining accent is measured the same
/// everywhere, and `COLUMNS` is honoured wherever a width is decided.
public enum DisplayColumns {
    // MARK: Text

    /// The columns `text` takes in a terminal: one per character (a letter with its
    /// combining accents is one character), two for East Asian wide characters and
    /// emoji, none for a lone combining mark or an invisible format character — the
    /// columns glibc's `wcswidth` counts.
    public static func of(_ text: String) -> Int {
        // NB: printable ASCII, most cells, is one column per byte; walking grapheme
        // clusters costs far more and would show in a listing of thousands of rows.
        if isPrintableASCII(text) { return text.utf8.count }
        return text.reduce(0) { $0 + of($1) }
    }

    /// The columns `character` takes: 0, 1 or 2.
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let scalar = scalars.first else { return 0 }
        if scalar.isASCII { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format:
            return 0
        default:
            break
        }
        // NB: an emoji asked for in colour (VS16, U+FE0F) is drawn two columns wide by
        // most terminals even where wcwidth says one: counting two never overflows.
        if isWide(scalar.value) || scalar.properties.isEmojiPresentation || scalars.contains("\u{FE0F}") { return 2 }
        return 1
    }

    /// Whether every byte of `text` is printable ASCII (one column each).
    public static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// The longest start of `text` that fits in `columns` columns (never a wide
    /// character cut in half).
    public static func prefix(_ text: String, fitting columns: Int) -> String {
        if isPrintableASCII(text) { return String(text.prefix(max(0, columns))) }
        var kept = ""
        var used = 0
        for character in text {
            let width = of(character)
            guard used + width <= columns else { break }
            kept.append(character)
            used += width
        }
        return kept
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
             0x4E00...0x9FFF, 0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF,
             0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    // MARK: The terminal

    /// The width to fit: the terminal's own (`TIOCGWINSZ`, when it says a width), else
    /// `COLUMNS` when it holds a width, else `fallback` (80 on a terminal that cannot
    /// say; nil, no limit, off a terminal).
    public static func terminalWidth(measured: Int?, environment: [String: String], fallback: Int?) -> Int? {
        if let measured, measured > 0 { return measured }
        return dimension(environment["COLUMNS"]) ?? fallback
    }

    /// A width or height from the environment (`COLUMNS`, `LINES`): a whole number from
    /// 1 to 10,000, else nil.
    public static func dimension(_ text: String?) -> Int? {
        guard let text, let value = Int(text.trimmingCharacters(in: .whitespaces)), (1...10_000).contains(value) else {
            return nil
        }
        return value
    }
}
