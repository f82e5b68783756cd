import Domain
import Presentation

// MARK: - Conflicts

/// The conflicts as the conflicts screen reads them from a `ConflictsViewModel`: the model
/// is generic over its port's records (Sync's, which this module never sees), so the
/// command that wires it says how a conflict reads as a row and a field as four values.
@MainActor
public struct Conflicts {
    /// One conflicted record.
    public typealias Row = RecordRow

    /// One field of an opened conflict: its base, local and server values as text, and
    /// whether a person must choose (changed differently on both sides).
    public struct Field: Hashable, Sendable {
        public let name: String
        public let base: String
        public let local: String
        public let server: String
        public let isClash: Bool

        public init(name: String, base: String, local: String, server: String, isClash: Bool) {
            self.name = name
            self.base = base
            self.local = local
            self.server = server
            self.isClash = isClash
        }
    }

    /// The side a field keeps.
    public enum Side: String, Hashable, Sendable {
        case local, server
    }

    let load: @MainActor () async -> Void
    let rows: @MainActor () -> [Row]
    let errorMessage: @MainActor () -> String?
    /// Opens one conflict field by field; nil (with `errorMessage`) when it cannot.
    let open: @MainActor (Row) async -> [Field]?
    /// Queues the resolution of the opened conflict, as `shelf resolve` does; nil when
    /// queued, the reason when not.
    let resolve: @MainActor ([String: Side]) async -> String?

    /// Lists, opens and resolves through `model`, the intents `shelf conflicts` and
    /// `shelf resolve` use.
    public init<Service: ConflictService>(
        _ model: ConflictsViewModel<Service>,
        row: @escaping @Sendable (Service.Conflict) -> Row,
        fields: @escaping @Sendable (Service.Detail) -> [Field],
        decisions: @escaping @Sendable ([String: Side]) -> Service.Decisions
    ) {
        load = { await model.load() }
        rows = { (model.state.value ?? []).map(row) }
        errorMessage = { model.errorMessage }
        open = { conflict in
            guard await model.open(conflict.id, in: conflict.collection), let detail = model.detail else { return nil }
            return fields(detail)
        }
        resolve = { choices in
            guard await model.resolve(decisions(choices)) != nil else {
                return model.errorMessage ?? "The conflict could not be resolved."
            }
            await model.load()
            return nil
        }
    }
}
