// MARK: - Cell

/// One column of one row of a `Frame`.
///
/// A wide character (CJK, most emoji) is a cell of width 2 followed by a continuation cell
/// that draws nothing; combining marks live in their base character's `text`.
public struct Cell: Hashable, Sendable {
    /// One character (a grapheme with its combining marks), or "" in a continuation cell.
    public internal(set) var text: String
    public internal(set) var style: Style
    /// 1, 2 for a wide character, 0 for the continuation cell after one.
    public internal(set) var width: Int

    init(text: String, style: Style, width: Int) {
        self.text = text
        self.style = style
        self.width = width
    }

    /// A space in `style`.
    public static func blank(_ style: Style = .plain) -> Cell {
        Cell(text: " ", style: style, width: 1)
    }

    var isContinuation: Bool { width == 0 }
}
