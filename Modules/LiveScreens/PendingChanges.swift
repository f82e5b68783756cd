import Domain
import Presentation

// MARK: - PendingChanges

/// What waits for the next sync, as `shelf ui`'s `P` reads it from a
/// `PendingChangesViewModel` — the operations of the history not synced yet, then the
/// changes made outside it — and the undo and redo of `shelf undo` and `shelf redo`. The
/// model is generic over its port's records (Sync's, which this module never sees), so the
/// command that wires it says how they read as rows.
///
/// An undo that needs the reader's yes (a record removed, a later change lost) is not
/// done at the first `u`: the reasons are shown, and a second `u` on the same row, with no
/// other key between, does it (`disarm` forgets the first).
@MainActor
public final class PendingChanges {
    /// One row: what `u` on it takes back, and its line.
    public struct Row: Hashable, Sendable {
        public let target: UndoTarget
        public let line: String

        public init(target: UndoTarget, line: String) {
            self.target = target
            self.line = line
        }
    }

    /// What an undo or redo came to.
    enum Outcome: Equatable {
        case done(String)
        /// Needs a yes: these reasons; the same key again does it.
        case needsConfirmation([String])
        case refused(String)
    }

    let load: @MainActor () async -> Void
    let rows: @MainActor () -> [Row]
    let isLoading: @MainActor () -> Bool
    let errorMessage: @MainActor () -> String?
    private let step: @MainActor (_ target: UndoTarget?, _ confirmed: Bool) async -> (done: String?, reasons: [String]?, error: String?)
    /// The undo (a target) or redo (nil) shown as needing a yes, waiting for its key again.
    private var armed: UndoTarget??

    /// Reads and undoes through `model`, the intents `shelf pending`, `undo` and `redo` use.
    /// - Parameters:
    ///   - rows: what waits, as rows (oldest first: the last is what `undo` takes back).
    ///   - done: what an undo or redo did, as a line.
    public init<Service: PendingChangeService>(
        _ model: PendingChangesViewModel<Service>, rows: @escaping @Sendable (Service.Pending) -> [Row],
        done: @escaping @Sendable (Service.Done) -> String
    ) {
        load = { await model.load() }
        self.rows = { model.state.value.map(rows) ?? [] }
        isLoading = { model.state.isLoading }
        errorMessage = { model.errorMessage }
        step = { target, confirmed in
            let asked = Asked()
            let confirm: @MainActor (Service.Step) async throws -> Bool = { step in
                guard !confirmed else { return true }
                asked.reasons = step.confirmationReasons
                return false
            }
            let result = if let target { await model.undo(target, confirm: confirm) } else { await model.redo(confirm: confirm) }
            await model.load()
            if let result { return (done(result), nil, nil) }
            if let reasons = asked.reasons { return (nil, reasons, nil) }
            return (nil, nil, model.errorMessage ?? "Nothing was changed.")
        }
    }

    /// Takes `row`'s operation (or record's changes) back; asks for the key again first
    /// when it needs a yes.
    func undo(_ row: Row) async -> Outcome {
        await carryOut(row.target)
    }

    /// Puts the last operation undone back.
    func redo() async -> Outcome {
        await carryOut(nil)
    }

    /// What a confirmation was asked for (the reasons), kept across the model's call.
    private final class Asked {
        var reasons: [String]?
    }

    /// Forgets an undo or redo shown as needing a yes: another key came between.
    func disarm() {
        armed = nil
    }

    private func carryOut(_ target: UndoTarget?) async -> Outcome {
        let confirmed = armed == .some(target)
        armed = nil
        let result = await step(target, confirmed)
        if let done = result.done { return .done(done) }
        if let reasons = result.reasons {
            armed = .some(target)
            return .needsConfirmation(reasons)
        }
        return .refused(result.error ?? "Nothing was changed.")
    }
}
