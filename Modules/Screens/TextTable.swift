// MARK: - TextTable

/// A table of aligned columns with a header row, as the CLI prints lists.
///
/// Columns are two spaces apart and as wide as their widest cell (in terminal
/// columns, see `TextWidth`); numbers align right. No line ends in spaces (the last
/// column is not padded). Styles wrap the padded text, so colour never shifts a column.
///
/// Given the terminal's width, the table fits it: the widest column gives up a column
/// at a time (its cells cut with "…") until the lines fit, so a long title shrinks
/// before a short id or a yes/no does; no line is ever wider than the terminal, and a
/// wide terminal shows long titles whole. Without one (a pipe), no cell is wider than
/// `maximumCellWidth`, so one huge title can't pad every row of the table. Either way
/// a cell is cut at `cellGuard` as it is made: no text from outside costs more than that.
struct TextTable {
    enum Alignment {
        case left, right
    }

    struct Column {
        let title: String
        let alignment: Alignment

        init(_ title: String, _ alignment: Alignment = .left) {
            self.title = title
            self.alignment = alignment
        }
    }

    struct Cell {
        let text: String
        let role: TextStyle.Role?
        /// The columns `text` takes (`TextWidth.of`), counted once.
        let width: Int

        init(_ text: String, _ role: TextStyle.Role? = nil) {
            // NB: most cells are short printable ASCII, which needs neither escaping nor
            // cutting and is one column a byte: one pass over the bytes instead of four.
            if text.utf8.count <= TextTable.cellGuard, TextWidth.isPrintableASCII(text) {
                self.text = text
                self.width = text.utf8.count
            } else {
                self.text = TextWidth.truncated(TextWidth.sanitized(text), limit: TextTable.cellGuard)
                self.width = TextWidth.of(self.text)
            }
            self.role = role
        }
    }

    /// The widest a cell may be without a terminal, in columns: 60 holds a 36-character
    /// id, most titles and names whole, and keeps a four-column table within 200
    /// columns. (The full text is in `show` and `--json`.)
    static let maximumCellWidth = 60

    /// The widest a cell is ever kept, in columns: wider than any terminal, so a table
    /// fitted to one is cut by the fitting, while a hostile megabyte of title is not
    /// measured, escaped and padded whole.
    static let cellGuard = 1_000

    let columns: [Column]
    private(set) var rows: [[Cell]] = []

    init(_ columns: [Column]) {
        self.columns = columns
    }

    mutating func append(_ cells: [Cell]) {
        precondition(cells.count == columns.count, "a row needs one cell per column")
        rows.append(cells)
    }

    mutating func append(_ texts: String...) {
        append(texts.map { Cell($0) })
    }

    /// The columns between two cells.
    static let gap = 2
    /// The narrowest a column shrinks to while another is wider: a few letters and "…"
    /// still say what a cell was; past that the columns shrink evenly down to one.
    static let minimumShrunkWidth = 6

    /// The header line and one line per row.
    /// - Parameter width: the terminal's width in columns; nil for no limit (a pipe).
    func lines(_ style: TextStyle, width: Int? = nil) -> [String] {
        let header = columns.map { Cell($0.title, .header) }
        var natural = header.map(\.width)
        for row in rows {
            for (index, cell) in row.enumerated() where cell.width > natural[index] { natural[index] = cell.width }
        }
        if width == nil { natural = natural.map { min($0, Self.maximumCellWidth) } }
        let widths = width.map { Self.fitted(natural, into: $0) } ?? natural
        let lineCapacity = widths.reduce(Self.gap * widths.count, +)
        func render(_ cells: [Cell]) -> String {
            var line = ""
            line.reserveCapacity(lineCapacity)
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                var text = cell.text
                var used = cell.width
                if used > widths[index] {
                    text = TextWidth.truncated(text, limit: widths[index])
                    used = TextWidth.of(text)
                }
                let padding = max(0, widths[index] - used)
                if index > 0 { Self.appendSpaces(Self.gap, to: &line) }
                // NB: a style wraps the padded text (colour never shifts a column); without
                // one the pieces go straight onto the line, a listing's thousands of rows
                // without a string for each padded cell.
                if style.styles(cell.role) {
                    let spaces = String(repeating: " ", count: padding)
                    let padded = switch columns[index].alignment {
                    case .left: isLast ? text : text + spaces
                    case .right: spaces + text
                    }
                    line += style.apply(cell.role, to: padded)
                } else {
                    switch columns[index].alignment {
                    case .left:
                        line += text
                        if !isLast { Self.appendSpaces(padding, to: &line) }
                    case .right:
                        Self.appendSpaces(padding, to: &line)
                        line += text
                    }
                }
            }
            // NB: an empty last cell leaves the separator and padding behind.
            while line.last == " " { line.removeLast() }
            return line
        }
        var lines = [render(header)]
        lines.reserveCapacity(rows.count + 1)
        for row in rows { lines.append(render(row)) }
        return lines
    }

    private static func appendSpaces(_ count: Int, to line: inout String) {
        for _ in 0..<max(0, count) { line.append(" ") }
    }

    /// Column widths that fit `total` columns with the gaps between them: the widest
    /// column gives up one column at a time (the leftmost of equals), first down to
    /// `minimumShrunkWidth`, then — on a terminal too narrow even for that — down to 1.
    /// A terminal narrower than one column per cell and the gaps keeps one column each;
    /// `ScreenText` cuts such lines at the terminal's width.
    static func fitted(_ natural: [Int], into total: Int) -> [Int] {
        var widths = natural
        let gaps = gap * max(0, widths.count - 1)
        var excess = widths.reduce(0, +) + gaps - total
        for floor in [minimumShrunkWidth, 1] {
            while excess > 0 {
                guard let widest = widths.indices.max(by: { widths[$0] < widths[$1] || (widths[$0] == widths[$1] && $0 > $1) }),
                      widths[widest] > floor else { break }
                // Down to the next widest column (or the floor) in one step: until then it
                // stays the widest; columns of equal width take turns, one at a time.
                let others = widths.indices.filter { $0 != widest }.map { widths[$0] }
                let next = max(floor, others.max() ?? floor)
                let step = min(excess, max(1, widths[widest] - next))
                widths[widest] -= step
                excess -= step
            }
        }
        return widths
    }
}
