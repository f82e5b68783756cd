import Terminal

// MARK: - PendingPane

/// The changes waiting for the next sync, the selected one marked; `u` takes the selected
/// change back (as `shelf undo COLLECTION/ID` does).
@MainActor
struct PendingPane {
    let pending: PendingChanges?
    let selection: Int

    func draw(into frame: inout Frame, rows area: Range<Int>) {
        let empty = pending.map { $0.isLoading() ? "Reading the changes…" : ($0.errorMessage() ?? "Nothing waits: every change is synced.") }
            ?? "Nothing is queued on this account."
        ListPane(
            title: "Waiting for the next sync", hint: "u takes the selected change back",
            rows: (pending?.rows() ?? []).map(\.line), empty: empty, selection: selection
        ).draw(into: &frame, rows: area)
    }
}
