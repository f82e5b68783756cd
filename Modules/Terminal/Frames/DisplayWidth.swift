import Vocabulary

// MARK: - DisplayWidth

/// Shelf's one measure of terminal columns (Vocabulary's `DisplayColumns`, which the CLI's
/// tables count with too), for what draws on a terminal cell by cell (`Frame`, the live
/// screens), so a frame and a table count a CJK title, an emoji or a combining accent the
/// same way.
public enum DisplayWidth {
    /// The columns `character` takes: 0 for a lone combining mark or an invisible format
    /// character, 2 for East Asian wide characters and emoji, 1 otherwise.
    public static func columns(of character: Character) -> Int {
        DisplayColumns.of(character)
    }

    /// The columns `text` takes, the sum of its characters' columns.
    public static func columns(of text: String) -> Int {
        DisplayColumns.of(text)
    }

    /// `text` with every control character (newlines, tabs, ESC…) shown as an escape
    /// (`TerminalEscaping`), so text from outside can never move the cursor or change the
    /// terminal's state.
    public static func printable(_ text: String) -> String {
        // NB: printable ASCII, nearly every cell, needs no escape and no second look.
        DisplayColumns.isPrintableASCII(text) ? text : TerminalEscaping.escaped(text)
    }
}
