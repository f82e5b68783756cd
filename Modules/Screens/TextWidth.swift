import Domain

// MARK: - TextWidth

/// Terminal-facing text: how many columns a string takes, and cell text made safe to
/// print.
enum TextWidth {
    /// The columns `text` takes in a terminal (Domain's `DisplayColumns`, the one rule).
    static func of(_ text: String) -> Int {
        DisplayColumns.of(text)
    }

    static func isPrintableASCII(_ text: String) -> Bool {
        DisplayColumns.isPrintableASCII(text)
    }

    static func width(of character: Character) -> Int {
        DisplayColumns.of(character)
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
        guard limit > 0 else { return "" }
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

    // MARK: Fitting lines

    /// `text` (plain, no escape codes) broken into lines of at most `width` columns, at
    /// spaces where it can be and inside a word only when one word is wider than that.
    static func wrapped(_ text: String, width: Int) -> [String] {
        guard width > 0, of(text) > width else { return [text] }
        var lines: [String] = []
        var line = ""
        var used = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            var word = String(word)
            var wordWidth = of(word)
            if used > 0, used + 1 + wordWidth <= width {
                line += " " + word
                used += 1 + wordWidth
                continue
            }
            if used > 0 || !line.isEmpty { lines.append(line) }
            // A word wider than a line fills whole lines.
            while wordWidth > width {
                var head = ""
                var headWidth = 0
                var rest = Substring(word)
                while let next = rest.first, headWidth + Self.width(of: next) <= width {
                    head.append(next)
                    headWidth += Self.width(of: next)
                    rest = rest.dropFirst()
                }
                // NB: a character wider than the whole line (2 columns on a 1-column
                // terminal) goes alone rather than loop for ever.
                if head.isEmpty, let next = rest.first { head.append(next); rest = rest.dropFirst() }
                lines.append(head)
                word = String(rest)
                wordWidth = of(word)
            }
            line = word
            used = wordWidth
        }
        lines.append(line)
        return lines
    }

    /// `line` cut to at most `width` columns, its ANSI escape sequences (colour) kept
    /// and taking no columns; a colour still open where the cut falls is reset.
    static func clipped(_ line: String, width: Int) -> String {
        if isPrintableASCII(line), line.utf8.count <= width { return line }
        var kept = ""
        var used = 0
        var inEscape = false
        var styled = false
        var wasCut = false
        for character in line {
            if inEscape {
                kept.append(character)
                if character.isLetter { inEscape = false }
                continue
            }
            if character == "\u{1B}" {
                inEscape = true
                kept.append(character)
                styled = true
                continue
            }
            let columns = Self.width(of: character)
            if wasCut || used + columns > width {
                wasCut = true
                continue
            }
            kept.append(character)
            used += columns
        }
        return wasCut && styled ? kept + "\u{1B}[0m" : kept
    }
}
