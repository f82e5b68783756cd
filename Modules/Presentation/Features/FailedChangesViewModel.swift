import Domain
import Observation

// MARK: - FailedChangesViewModel

/// The changes the server refused (dead letters), and the reader's two ways out: send
/// one again, or drop it for the server's version. `shelf failed`, `retry` and
/// `discard` go through it.
@MainActor
@Observable
public final class FailedChangesViewModel<Service: FailedChangeService> {
    // MARK: State

    /// The refused changes as last loaded.
    public var state: LoadingState<[Service.FailedChange]> { content.state }
    /// The last failure of a load or an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    /// The error behind `errorMessage`, for a front that tells failures apart by kind.
    public var failure: (any Error)? { content.failure }

    // MARK: Dependencies

    private let service: Service
    private let content = ContentController<[Service.FailedChange]>()

    public init(service: Service) {
        self.service = service
    }

    /// Cancels the work in flight; nothing it would have loaded or changed is published.
    public func cancel() {
        content.cancel()
    }

    /// Loads the refused changes.
    public func load() async {
        let service = self.service
        await content.load(.newestWins, action: "load the failed changes") { try await service.failedChanges() }
    }

    // MARK: Intents

    /// Queues a refused change to be sent again on the next sync.
    /// - Returns: whether it was queued.
    public func retry(_ id: Int64) async -> Bool {
        let service = self.service
        return await content.attempt("retry the change", { try await service.retry(failedChange: id) })
    }

    /// Drops a refused change and restores the server's version.
    /// - Returns: whether it was dropped.
    public func discard(_ id: Int64) async -> Bool {
        let service = self.service
        return await content.attempt("discard the change", { try await service.discard(failedChange: id) })
    }
}
