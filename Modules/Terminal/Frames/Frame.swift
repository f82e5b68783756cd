// MARK: - Frame

/// What the screen should show: `rows × columns` cells. A frame is a value, built whole
/// for every redraw; `FrameDiff` then writes only what changed since the last one.
///
/// Text is measured by Shelf's one display-width rule (`DisplayWidth`, the CLI's tables'
/// rule): a wide character takes two cells, a combining mark joins the cell before it, and
/// a line is clipped at the right edge, never wrapped. Control characters are shown as
/// escapes (`DisplayWidth.printable`), so text from outside cannot act on the terminal.
public struct Frame: Hashable, Sendable {
    public let size: TerminalSize
    public private(set) var cells: [Cell]

    /// A frame of blanks in `style`.
    public init(size: TerminalSize, style: Style = .plain) {
        self.size = size
        cells = Array(repeating: .blank(style), count: size.rows * size.columns)
    }

    public var rows: Int { size.rows }
    public var columns: Int { size.columns }

    /// The cell at `row`, `column` (both from 0, inside the frame).
    public subscript(row: Int, column: Int) -> Cell {
        cells[row * size.columns + column]
    }

    // MARK: Writing

    /// Writes `text` on `row` from `column`, clipped at the right edge by display width:
    /// a wide character that would straddle the edge is left out whole.
    /// - Returns: the column after the last cell written (where more text would go).
    @discardableResult
    public mutating func write(_ text: String, row: Int, column: Int, style: Style = .plain) -> Int {
        guard (0..<size.rows).contains(row) else { return column }
        var column = column
        for character in DisplayWidth.printable(text) {
            let width = DisplayWidth.columns(of: character)
            if width == 0 {
                attach(character, row: row, before: column)
                continue
            }
            guard column + width <= size.columns else { break }
            if column >= 0 { put(character, width: width, style: style, row: row, column: column) }
            column += width
        }
        return column
    }

    /// Paints `columns` cells of `row` from `column` as blanks in `style` (a bar, a
    /// selected row's background), clipped to the frame.
    public mutating func fill(row: Int, column: Int = 0, columns: Int? = nil, style: Style) {
        guard (0..<size.rows).contains(row) else { return }
        let start = max(0, column)
        let end = min(size.columns, column + (columns ?? size.columns))
        guard start < end else { return }
        for column in start..<end { put(" ", width: 1, style: style, row: row, column: column) }
    }

    /// The text of `row` as a terminal shows it, styles left out (for tests and logs).
    public func line(_ row: Int) -> String {
        guard (0..<size.rows).contains(row) else { return "" }
        return (0..<size.columns).map { self[row, $0].text }.joined()
    }

    // MARK: Cells

    private mutating func put(_ character: Character, width: Int, style: Style, row: Int, column: Int) {
        let index = row * size.columns + column
        clearWideCharacter(at: index, row: row)
        if width == 2 { clearWideCharacter(at: index + 1, row: row) }
        cells[index] = Cell(text: String(character), style: style, width: width)
        if width == 2 { cells[index + 1] = Cell(text: "", style: style, width: 0) }
    }

    /// Before a cell is overwritten: the other half of a wide character it belongs to
    /// becomes a blank, so no half character is ever left on the screen.
    private mutating func clearWideCharacter(at index: Int, row: Int) {
        let rowStart = row * size.columns
        let cell = cells[index]
        if cell.isContinuation, index > rowStart {
            cells[index - 1] = .blank(cells[index - 1].style)
        } else if cell.width == 2, index + 1 < rowStart + size.columns {
            cells[index + 1] = .blank(cells[index + 1].style)
        }
    }

    /// A combining mark (or another zero-width character) at the start of a write joins
    /// the character in the cell before it; at the left edge there is none, and it is dropped.
    private mutating func attach(_ character: Character, row: Int, before column: Int) {
        guard column > 0, column <= size.columns else { return }
        var index = row * size.columns + column - 1
        if cells[index].isContinuation, column >= 2 { index -= 1 }
        cells[index].text.append(character)
    }
}
