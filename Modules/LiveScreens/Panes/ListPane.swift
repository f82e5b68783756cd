import Terminal

// MARK: - ListPane

/// A titled list of rows with one selected (marked ›, reversed), scrolled so the selection
/// stays in view: the notes and the tasks, whose rows their view models give.
struct ListPane {
    let title: String
    let hint: String
    let rows: [String]
    let empty: String
    let selection: Int

    func draw(into frame: inout Frame, rows area: Range<Int>) {
        guard let first = area.first else { return }
        frame.write(title, row: first, column: 2, style: .bold)
        frame.write(hint, row: first, column: max(DisplayWidthText.columns(title) + 6, frame.columns - DisplayWidthText.columns(hint) - 2), style: .dim)
        guard !rows.isEmpty else {
            frame.write(empty, row: first + 2, column: 2, style: .dim)
            return
        }
        let visible = max(1, area.upperBound - first - 2)
        let top = max(0, min(selection - visible + 1, rows.count - visible))
        for (offset, text) in rows.dropFirst(top).prefix(visible).enumerated() {
            let index = top + offset
            let row = first + 2 + offset
            let selected = index == selection
            frame.writeListRow(fitting: text, row: row, selected: selected)
        }
    }
}
