// MARK: - Key

/// One key as a terminal in raw mode reports it, whatever bytes it took (`KeyDecoder`).
///
/// Modifiers that terminals add to arrows and the like (`ESC [ 1 ; 5 A`) are dropped: the
/// key is still the arrow, which is what a list or a form needs.
public enum Key: Hashable, Sendable {
    /// A printable character: ASCII, or one Unicode scalar from multi-byte UTF-8 (CJK,
    /// emoji, an accent typed on its own). Invalid UTF-8 arrives as U+FFFD.
    case character(Character)
    case enter
    /// A lone ESC: one that no sequence followed before the reader's escape delay ended.
    case escape
    /// DEL (0x7F) and BS (0x08): terminals send either for the key above Enter.
    case backspace
    case tab
    /// Shift-Tab (`ESC [ Z`).
    case backTab
    case up, down, left, right
    case home, end, pageUp, pageDown, insert, delete
    /// F1 to F12.
    case function(Int)
    /// Ctrl with a letter (`"a"`…`"z"`) or with `@ \ ] ^ _`. Ctrl-C and Ctrl-Z arrive
    /// here, not as signals: raw mode turns ISIG off (`RawMode`).
    case control(Character)
}

// MARK: - TerminalInput

/// What the keyboard sends: keys one by one, or a bracketed paste as one piece of text, so
/// pasted text is never taken for commands (a pasted "q" must not quit).
public enum TerminalInput: Hashable, Sendable {
    case key(Key)
    /// The text between `ESC [ 200 ~` and `ESC [ 201 ~`, line ends as `\n`, cut at
    /// `KeyDecoder.Limits.pasteBytes`.
    case paste(String)
}
