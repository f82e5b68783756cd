// MARK: - TextTable

/// A table of aligned columns with a header row, as the CLI prints lists.
///
/// Columns are two spaces apart and as wide as their widest cell (in terminal
/// columns, see `TextWidth`), and no cell is wider than `maximumCellWidth`: a longer
/// one is cut with "…", so one huge title can't pad every row of the table; numbers
/// align right. No line ends in spaces (the last
/// column is not padded). Styles wrap the padded text, so colour never shifts a column.
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

        init(_ text: String, _ role: TextStyle.Role? = nil) {
            self.text = TextWidth.truncated(TextWidth.sanitized(text), limit: TextTable.maximumCellWidth)
            self.role = role
        }
    }

    /// The widest a cell may be, in terminal columns: 60 holds a 36-character id, most
    /// titles and names whole, and keeps a four-column table within 200 columns. (The
    /// full text is in `show` and `--json`.)
    static let maximumCellWidth = 60

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

    /// The header line and one line per row.
    func lines(_ style: TextStyle) -> [String] {
        let header = columns.map { Cell($0.title, .header) }
        let widths = columns.indices.map { index in
            ([header] + rows).map { TextWidth.of($0[index].text) }.max() ?? 0
        }
        return ([header] + rows).map { cells in
            var line = ""
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                let padding = String(repeating: " ", count: widths[index] - TextWidth.of(cell.text))
                let padded = switch columns[index].alignment {
                case .left: isLast ? cell.text : cell.text + padding
                case .right: padding + cell.text
                }
                if index > 0 { line += "  " }
                line += style.apply(cell.role, to: padded)
            }
            // NB: an empty last cell leaves the separator and padding behind.
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
