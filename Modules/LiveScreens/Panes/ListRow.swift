import Terminal

// MARK: - A list's row

extension Frame {
    /// One row of a list, `›` before the selected one and the whole row reversed, so the
    /// selection shows without colour (`NO_COLOR`) and without reverse video too.
    /// - Parameter text: the row after its one-column marker.
    mutating func writeListRow(_ text: String, row: Int, selected: Bool, style: Style = .plain) {
        if selected { fill(row: row, style: .reversed) }
        write((selected ? "›" : " ") + text, row: row, column: 0, style: selected ? .reversed : style)
    }

    /// A row of text fitted to the width after the marker and a space: the lists' usual row.
    mutating func writeListRow(fitting text: String, row: Int, selected: Bool) {
        writeListRow(" " + FittedText.fit(text, max(1, columns - 4)), row: row, selected: selected)
    }
}
