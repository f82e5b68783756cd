import Terminal

// MARK: - FittedText

/// Text cut to a number of terminal columns by Shelf's one width rule (`DisplayWidth`),
/// with `…` where it was cut, and padded with spaces, so columns of a list line up
/// whatever the script (CJK takes two columns, a combining mark none).
enum FittedText {
    /// `text` in exactly `width` columns: cut with `…` when longer, padded when shorter.
    static func fit(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        let printable = DisplayWidth.printable(text)
        let columns = DisplayWidth.columns(of: printable)
        if columns <= width { return printable + String(repeating: " ", count: width - columns) }
        var kept = ""
        var used = 0
        for character in printable {
            let needed = DisplayWidth.columns(of: character)
            guard used + needed <= width - 1 else { break }
            kept.append(character)
            used += needed
        }
        return kept + "…" + String(repeating: " ", count: max(0, width - 1 - used))
    }
}

// MARK: - DisplayWidthText

/// The columns text takes once made printable, as `Frame.write` draws it.
enum DisplayWidthText {
    static func columns(_ text: String) -> Int { DisplayWidth.columns(of: DisplayWidth.printable(text)) }
}
