import Domain

// MARK: - TextWidth

/// Terminal-facing text: how many columns a string takes, and cell text made safe to
/// print.
enum TextWidth {
    /// The columns `text` takes in a terminal: one per character, two for East Asian
    /// wide characters and emoji, so columns of titles in any script line up.
    static func of(_ text: String) -> Int {
        // NB: printable ASCII, most cells, is one column per byte; walking grapheme
        // clusters costs far more and would show in a listing of thousands of rows.
        if isPrintableASCII(text) { return text.utf8.count }
        return text.reduce(0) { $0 + width(of: $1) }
    }

    private static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    private static func width(of character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        return isWide(scalar.value) ? 2 : 1
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
             0x4E00...0x9FFF, 0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF,
             0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` with every control character (newlines, tabs, ESC…) shown as an escape
    /// (`TerminalEscaping`), so data from the server can neither break a table's rows
    /// nor send escape codes to the terminal.
    static func sanitized(_ text: String) -> String {
        if isPrintableASCII(text) { return text }
        return TerminalEscaping.escaped(text)
    }

    /// `text` cut to at most `limit` columns, ending in "…" when anything was left out.
    static func truncated(_ text: String, limit: Int) -> String {
        if isPrintableASCII(text), text.utf8.count <= limit { return text }
        guard of(text) > limit else { return text }
        var kept = ""
        var used = 0
        for character in text {
            let width = width(of: character)
            guard used + width <= limit - 1 else { break }
            kept.append(character)
            used += width
        }
        return kept + "…"
    }

    /// The first line of `text`, cut to at most `limit` columns, with "…" when anything
    /// was left out (the rest of a long line, or later lines).
    static func excerpt(_ text: String, limit: Int) -> String {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        let first = sanitized(String(lines.first ?? ""))
        let hasMoreLines = lines.dropFirst().contains { !$0.allSatisfy(\.isWhitespace) }
        guard hasMoreLines || of(first) > limit else { return first }
        var kept = ""
        var used = 0
        for character in first {
            let width = width(of: character)
            guard used + width <= limit - 1 else { break }
            kept.append(character)
            used += width
        }
        return kept + "…"
    }
}
