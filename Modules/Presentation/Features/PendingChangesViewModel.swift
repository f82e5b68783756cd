import Domain
import Observation

// MARK: - PendingChangesViewModel

/// The local changes the server has not seen yet, and taking one back before a sync
/// sends it. `shelf pending` and `shelf undo` go through it.
@MainActor
@Observable
public final class PendingChangesViewModel<Service: PendingChangeService> {
    // MARK: State

    /// The waiting changes as last loaded, the least recently changed first.
    public var state: LoadingState<[Service.Change]> { content.state }
    /// The last failure of a load or an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    /// The error behind `errorMessage`, for a front that tells failures apart by kind.
    public var failure: (any Error)? { content.failure }

    // MARK: Dependencies

    private let service: Service
    private let content = ContentController<[Service.Change]>()

    public init(service: Service) {
        self.service = service
    }

    /// Cancels the work in flight; nothing it would have loaded or changed is published.
    public func cancel() {
        content.cancel()
    }

    /// Loads the waiting changes.
    public func load() async {
        let service = self.service
        await content.load(.newestWins, action: "load the changes not synced yet") { try await service.pendingChanges() }
    }

    // MARK: Intents

    /// Takes back the record's change, or the latest change when `id` is nil.
    /// - Returns: what was taken back, or nil when nothing could be (see `failure`).
    public func undo(_ collection: CollectionName?, id: String?) async -> Service.Undone? {
        let service = self.service
        return await content.attempt("take the change back", { try await service.undo(collection, id: id) })
    }
}
