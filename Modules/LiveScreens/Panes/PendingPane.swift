import Terminal

// MARK: - PendingPane

/// The changes waiting for the next sync, newest last, the selected one marked; `u` takes
/// the selected change back (as `shelf undo COLLECTION/ID` does).
@MainActor
struct PendingPane {
    let pending: PendingChanges?
    let selection: Int

    func draw(into frame: inout Frame, rows area: Range<Int>) {
        guard let first = area.first else { return }
        frame.write("Waiting for the next sync", row: first, column: 2, style: .bold)
        guard let pending else {
            frame.write("Nothing is queued on this account.", row: first + 2, column: 2, style: .dim)
            return
        }
        let rows = pending.rows()
        if rows.isEmpty {
            let text = pending.isLoading() ? "Reading the changes…" : (pending.errorMessage() ?? "Nothing waits: every change is synced.")
            frame.write(text, row: first + 2, column: 2, style: .dim)
            return
        }
        frame.write("u takes the selected change back", row: first, column: max(30, frame.columns - 34), style: .dim)
        let width = max(1, frame.columns - 4)
        for (index, change) in rows.enumerated() {
            let row = first + 2 + index
            guard row < area.upperBound else { break }
            let selected = index == selection
            if selected { frame.fill(row: row, style: .reversed) }
            let line = (selected ? "› " : "  ") + FittedText.fit("\(change.collection.rawValue)/\(change.id)  \(change.text)", width)
            frame.write(line, row: row, column: 0, style: selected ? .reversed : .plain)
        }
    }
}
