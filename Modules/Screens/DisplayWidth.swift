// MARK: - DisplayWidth

/// Shelf's one measure of terminal columns, `TextWidth`, opened to the modules that draw
/// on a terminal cell by cell (`Modules/Terminal`'s `Frame`), so a frame and a table
/// count a CJK title, an emoji or a combining accent the same way.
public enum DisplayWidth {
    /// The columns `character` takes: 0 for a lone combining mark or an invisible format
    /// character, 2 for East Asian wide characters and emoji, 1 otherwise.
    public static func columns(of character: Character) -> Int {
        TextWidth.width(of: character)
    }

    /// The columns `text` takes, the sum of its characters' columns.
    public static func columns(of text: String) -> Int {
        TextWidth.of(text)
    }

    /// `text` with every control character (newlines, tabs, ESC…) shown as an escape, so
    /// text from outside can never move the cursor or change the terminal's state.
    public static func printable(_ text: String) -> String {
        TextWidth.sanitized(text)
    }
}
