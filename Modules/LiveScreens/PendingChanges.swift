import Domain
import Presentation

// MARK: - PendingChanges

/// The changes not synced yet, as the pending screen reads them from a
/// `PendingChangesViewModel`: the model is generic over its port's records (Sync's, which
/// this module never sees), so the command that wires it says how a change reads as a row.
@MainActor
public struct PendingChanges {
    /// One change as a row: the record it is about and a line that says what changed.
    public typealias Row = RecordRow

    let load: @MainActor () async -> Void
    let rows: @MainActor () -> [Row]
    let isLoading: @MainActor () -> Bool
    let errorMessage: @MainActor () -> String?
    /// Takes the row's change back; nil when it was, the reason when not.
    let undo: @MainActor (Row) async -> String?

    /// Reads and undoes through `model`, the intents `shelf pending` and `shelf undo` use.
    public init<Service: PendingChangeService>(
        _ model: PendingChangesViewModel<Service>, row: @escaping @Sendable (Service.Change) -> Row
    ) {
        load = { await model.load() }
        rows = { (model.state.value ?? []).map(row) }
        isLoading = { model.state.isLoading }
        errorMessage = { model.errorMessage }
        undo = { change in
            guard await model.undo(change.collection, id: change.id) != nil else {
                return model.errorMessage ?? "The change could not be taken back."
            }
            await model.load()
            return nil
        }
    }
}
