import Domain
import Observation

// MARK: - PendingChangesViewModel

/// The reader's history of operations, what of it the next sync sends, and taking one
/// step back or forward. `shelf pending`, `shelf history`, `shelf undo`, `shelf redo` and
/// `shelf ui`'s `P` go through it.
///
/// An undo or redo is judged first (the port's `Step`); when it says something
/// needs the reader's yes (a record removed, a later change lost), the front's `confirm`
/// is asked, and nothing is written unless it answers yes.
@MainActor
@Observable
public final class PendingChangesViewModel<Service: PendingChangeService> {
    // MARK: State

    /// What waits for the next sync, as last loaded.
    public var state: LoadingState<Service.Pending> { content.state }
    /// The history, oldest first, as last loaded (`loadHistory`).
    public var history: LoadingState<[Service.Entry]> { historyContent.state }
    /// The last failure of a load or an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage ?? historyContent.errorMessage }
    /// The error behind `errorMessage`, for a front that tells failures apart by kind.
    public var failure: (any Error)? { content.failure ?? historyContent.failure }

    // MARK: Dependencies

    private let service: Service
    private let content = ContentController<Service.Pending>()
    private let historyContent = ContentController<[Service.Entry]>()

    public init(service: Service) {
        self.service = service
    }

    /// Cancels the work in flight; nothing it would have loaded or changed is published.
    public func cancel() {
        content.cancel()
        historyContent.cancel()
    }

    /// Loads what waits for the next sync.
    public func load() async {
        let service = self.service
        await content.load(.newestWins, action: "load the changes not synced yet") { try await service.pendingChanges() }
    }

    /// Loads the history.
    public func loadHistory() async {
        let service = self.service
        await historyContent.load(.newestWins, action: "load the history") { try await service.history() }
    }

    // MARK: Intents

    /// Takes back the last operation, an older one, or a record's last.
    /// - Parameter confirm: asked when the plan needs the reader's yes; false (or a
    ///   throw) leaves everything as it was.
    /// - Returns: what was taken back, or nil when nothing was (see `failure`).
    public func undo(
        _ target: UndoTarget = .last, confirm: @escaping @MainActor (Service.Step) async throws -> Bool
    ) async -> Service.Done? {
        let service = self.service
        return await content.attempt("undo") {
            try await Self.carryOut(try await service.planUndo(target), service: service, confirm: confirm)
        }
    }

    /// Puts back the last operation undone.
    public func redo(confirm: @escaping @MainActor (Service.Step) async throws -> Bool) async -> Service.Done? {
        let service = self.service
        return await content.attempt("redo") {
            try await Self.carryOut(try await service.planRedo(), service: service, confirm: confirm)
        }
    }

    private static func carryOut(
        _ plan: Service.Step, service: Service, confirm: @MainActor (Service.Step) async throws -> Bool
    ) async throws -> Service.Done {
        if !plan.confirmationReasons.isEmpty, !(try await confirm(plan)) { throw FeatureError.declined }
        return try await service.carryOut(plan)
    }
}
