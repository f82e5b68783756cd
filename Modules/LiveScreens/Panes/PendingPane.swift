import Terminal

// MARK: - PendingPane

/// The operations waiting for the next sync (then the changes made outside the history),
/// the selected one marked; `u` takes the selected one back (as `shelf undo --operation N`
/// or `shelf undo COLLECTION/ID` does), `r` puts the last one undone back (`shelf redo`).
@MainActor
struct PendingPane {
    let pending: PendingChanges?
    let selection: Int

    func draw(into frame: inout Frame, rows area: Range<Int>) {
        let empty = pending.map { $0.isLoading() ? "Reading the changes…" : ($0.errorMessage() ?? "Nothing waits: every change is synced.") }
            ?? "Nothing is queued on this account."
        ListPane(
            title: "Waiting for the next sync", hint: "u takes the selected one back, r redoes",
            rows: (pending?.rows() ?? []).map(\.line), empty: empty, selection: selection
        ).draw(into: &frame, rows: area)
    }
}
