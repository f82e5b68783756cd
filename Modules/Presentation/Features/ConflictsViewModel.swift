import Domain
import Observation

// MARK: - ConflictsViewModel

/// The conflicts a sync left for the reader: the list, one conflict field by field, and
/// the decision that settles it. `shelf conflicts`, `conflicts show` and `resolve` go
/// through it, and so will the terminal interface's conflict screens.
@MainActor
@Observable
public final class ConflictsViewModel<Service: ConflictService> {
    // MARK: State

    /// The conflicts as last loaded.
    public var state: LoadingState<[Service.Conflict]> { content.state }
    /// The conflict opened with `open(_:in:)`, field by field.
    public private(set) var detail: Service.Detail?
    /// Where the opened conflict is.
    public private(set) var opened: (collection: CollectionName, id: String)?
    /// The last failure of a load or an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    /// The error behind `errorMessage`, for a front that tells failures apart by kind.
    public var failure: (any Error)? { content.failure }

    // MARK: Dependencies

    private let service: Service
    private let content = ContentController<[Service.Conflict]>()

    public init(service: Service) {
        self.service = service
    }

    /// Cancels the work in flight; nothing it would have loaded or changed is published.
    public func cancel() {
        content.cancel()
    }

    // MARK: Loading

    /// Loads the conflicts waiting for a decision.
    public func load() async {
        let service = self.service
        await content.load(.newestWins, action: "load the conflicts") { try await service.conflicts() }
    }

    /// Finds the conflict `reference` names and reads it field by field.
    /// - Returns: whether it is open (`detail`); see `failure` otherwise.
    public func open(_ reference: String, in collection: CollectionName?) async -> Bool {
        let service = self.service
        guard let found = await content.attempt("open the conflict", {
            let (collection, id) = try await service.locateConflict(reference, in: collection)
            return (collection, id, try await service.conflictDetail(collection, id: id))
        }) else { return false }
        opened = (found.0, found.1)
        detail = found.2
        return true
    }

    // MARK: Intents

    /// Settles the opened conflict with `decisions`.
    /// - Returns: what was kept, or nil when nothing is open or the decisions do not fit.
    public func resolve(_ decisions: Service.Decisions) async -> Service.Resolution? {
        let action = "resolve the conflict"
        guard let opened else {
            content.refuse(action, FeatureError.notLoaded("conflict"))
            return nil
        }
        let service = self.service
        guard let resolution = await content.attempt(action, { try await service.resolve(opened.collection, id: opened.id, decisions) })
        else { return nil }
        self.opened = nil
        detail = nil
        return resolution
    }
}
