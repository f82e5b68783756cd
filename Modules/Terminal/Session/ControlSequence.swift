// MARK: - ControlSequence

/// The escape sequences Shelf sends to a terminal: ECMA-48 and the xterm private modes
/// every terminal emulator in use understands. Each is written in one place.
enum ControlSequence {
    static let escape = "\u{1B}["

    // MARK: Screen and modes

    static let enterAlternateScreen = "\u{1B}[?1049h"
    static let leaveAlternateScreen = "\u{1B}[?1049l"
    static let hideCursor = "\u{1B}[?25l"
    static let showCursor = "\u{1B}[?25h"
    static let enableBracketedPaste = "\u{1B}[?2004h"
    static let disableBracketedPaste = "\u{1B}[?2004l"
    static let home = "\u{1B}[H"
    static let clearScreen = "\u{1B}[2J"

    /// What a session writes when it takes the terminal: the alternate screen (the shell's
    /// screen comes back untouched), no cursor, pastes marked.
    static let enter = enterAlternateScreen + hideCursor + enableBracketedPaste
    /// The reverse, in reverse order.
    static let leave = disableBracketedPaste + resetStyle + showCursor + leaveAlternateScreen

    // MARK: Cursor

    /// CUP, 1-based on the wire; the shortest form for the first row or column.
    static func moveTo(row: Int, column: Int) -> String {
        switch (row, column) {
        case (0, 0): home
        case (_, 0): "\(escape)\(row + 1)H"
        default: "\(escape)\(row + 1);\(column + 1)H"
        }
    }

    /// CUF: `count` columns to the right on the same row.
    static func forward(_ count: Int) -> String {
        count == 1 ? "\(escape)C" : "\(escape)\(count)C"
    }

    // MARK: Style

    static let resetStyle = "\u{1B}[0m"

    /// SGR for `style` from scratch (reset first), so no attribute of the cell before
    /// lingers: one sequence per change of style.
    static func select(_ style: Style) -> String {
        guard style != .plain else { return resetStyle }
        var codes = ["0"]
        if style.isBold { codes.append("1") }
        if style.isDim { codes.append("2") }
        if style.isUnderlined { codes.append("4") }
        if style.isReversed { codes.append("7") }
        if let foreground = style.foreground { codes.append(String(30 + Int(foreground.rawValue))) }
        if let background = style.background { codes.append(String(40 + Int(background.rawValue))) }
        return escape + codes.joined(separator: ";") + "m"
    }
}
