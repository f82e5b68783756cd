import Vocabulary

// MARK: - TextWrapping

/// Breaks a sentence into lines of at most `width` terminal columns (Domain's
/// `DisplayColumns`) at spaces, for help laid out in columns. A word wider than the
/// width gets a line of its own, unbroken.
enum TextWrapping {
    static func lines(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if current.isEmpty {
                current = String(word)
            } else if DisplayColumns.of(current) + 1 + DisplayColumns.of(String(word)) <= max(width, 1) {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }
}
