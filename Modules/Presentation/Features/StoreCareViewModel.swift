import Domain
import Observation

// MARK: - StoreCareViewModel

/// The local store's care: a diagnosis, a backup, a restore. `shelf doctor`, `backup` and
/// `restore` go through it.
@MainActor
@Observable
public final class StoreCareViewModel<Service: StoreCaring> {
    // MARK: State

    /// The last diagnosis.
    public var state: LoadingState<Service.Diagnosis> { content.state }
    /// The last failure of a check or an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    /// The error behind `errorMessage`, for a front that tells failures apart by kind.
    public var failure: (any Error)? { content.failure }

    // MARK: Dependencies

    private let service: Service
    private let content = ContentController<Service.Diagnosis>()

    public init(service: Service) {
        self.service = service
    }

    /// Checks the store whole.
    public func diagnose() async {
        let service = self.service
        await content.load(.newestWins, action: "check the store") { try await service.diagnose() }
    }

    // MARK: Intents

    /// Copies the store to a new file at `path`.
    public func backup(to path: String) async -> Service.Backup? {
        let service = self.service
        return await content.attempt("back the store up", { try await service.backup(to: path) })
    }

    /// Puts the checked backup at `path` in the store's place.
    public func restore(from path: String) async -> Service.Restore? {
        let service = self.service
        return await content.attempt("restore the store", { try await service.restore(from: path) })
    }
}
