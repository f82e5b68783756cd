import Domain
import Presentation

// MARK: - FailedChanges

/// The changes the server refused for good, as the failed screen reads them from a
/// `FailedChangesViewModel`: the model is generic over its port's records (Sync's, which
/// this module never sees), so the command that wires it says how a change reads as a row.
@MainActor
public struct FailedChanges {
    /// One refused change: the dead letter's number (what `shelf retry` takes) and a line.
    public struct Row: Hashable, Sendable {
        public let id: Int64
        public let text: String

        public init(id: Int64, text: String) {
            self.id = id
            self.text = text
        }
    }

    let load: @MainActor () async -> Void
    let rows: @MainActor () -> [Row]
    let isLoading: @MainActor () -> Bool
    let errorMessage: @MainActor () -> String?
    /// Queues the change to be sent again (`r`); nil when queued, the reason when not.
    let retry: @MainActor (Row) async -> String?
    /// Drops the change and restores the server's version (`d`); nil when done.
    let discard: @MainActor (Row) async -> String?

    /// Reads, retries and discards through `model`, the intents `shelf failed`,
    /// `shelf retry` and `shelf discard` use.
    public init<Service: FailedChangeService>(
        _ model: FailedChangesViewModel<Service>, row: @escaping @Sendable (Service.FailedChange) -> Row
    ) {
        load = { await model.load() }
        rows = { (model.state.value ?? []).map(row) }
        isLoading = { model.state.isLoading }
        errorMessage = { model.errorMessage }
        retry = { change in
            guard await model.retry(change.id) else { return model.errorMessage ?? "The change was not queued again." }
            await model.load()
            return nil
        }
        discard = { change in
            guard await model.discard(change.id) else { return model.errorMessage ?? "The change was not discarded." }
            await model.load()
            return nil
        }
    }
}
