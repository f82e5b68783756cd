import Terminal

// MARK: - ConflictsPane

/// The conflicts waiting for a person: the list, or one conflict field by field with its
/// base, local and server values and the side chosen for each clashing field (`l` local,
/// `r` the server's; `w` queues the resolution once every clash has a side).
@MainActor
struct ConflictsPane {
    let conflicts: Conflicts?
    /// The opened conflict's fields, nil while the list is shown.
    let fields: [Conflicts.Field]?
    let choices: [String: Conflicts.Side]
    let selection: Int

    func draw(into frame: inout Frame, rows area: Range<Int>) {
        guard let first = area.first else { return }
        guard let conflicts else {
            frame.write("No conflicts on this account.", row: first, column: 2, style: .dim)
            return
        }
        guard let fields else {
            return ListPane(
                title: "Conflicts", hint: "Enter opens a conflict field by field", rows: conflicts.rows().map(\.line),
                empty: conflicts.errorMessage() ?? "No conflicts: nothing waits for a decision.", selection: selection
            ).draw(into: &frame, rows: area)
        }
        frame.write("l keeps local, r the server's; w queues the resolution (as shelf resolve)", row: first, column: 2, style: .dim)
        let width = max(8, (frame.columns - 4 - 14 - 10) / 3)
        let header = FittedText.fit("FIELD", 14) + FittedText.fit("BASE", width) + FittedText.fit("LOCAL", width)
            + FittedText.fit("SERVER", width) + "KEEPS"
        frame.write(header, row: first + 2, column: 2, style: .bold)
        for (index, field) in fields.enumerated() {
            let row = first + 3 + index
            guard row < area.upperBound else { break }
            let selected = index == selection
            let keeps = field.isClash ? (choices[field.name].map(\.rawValue) ?? "choose") : "merged"
            let line = " " + FittedText.fit(field.name, 14) + FittedText.fit(field.base, width)
                + FittedText.fit(field.local, width) + FittedText.fit(field.server, width) + keeps
            frame.writeListRow(line, row: row, selected: selected, style: field.isClash ? .bold : .plain)
        }
    }
}
