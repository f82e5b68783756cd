// MARK: - Ports over the reader's decisions
//
// What a sync leaves to the reader (conflicts, changes the server refused) and the
// changes a reader can take back before they are sent. The records these ports speak
// of are the sync engine's own (`ConflictSummary`, `ConflictDetail`, `UnsyncedChange`…),
// so each port names them as associated types: Presentation's view models hold and
// publish them without ever seeing Sync or the store, and a test hands them fakes.

/// The conflicts waiting for a decision, and the decisions that settle them.
public protocol ConflictService: Sendable {
    associatedtype Conflict: Sendable
    associatedtype Detail: Sendable
    associatedtype Decisions: Sendable
    associatedtype Resolution: Sendable

    func conflicts() async throws -> [Conflict]
    /// The conflicted record a reference names: an id, a unique prefix of one, in a
    /// collection or in any.
    func locateConflict(_ reference: String, in collection: CollectionName?) async throws -> (collection: CollectionName, id: String)
    /// One conflict field by field.
    func conflictDetail(_ collection: CollectionName, id: String) async throws -> Detail
    /// Settles one conflict; the result goes to the server with the next sync.
    func resolve(_ collection: CollectionName, id: String, _ decisions: Decisions) async throws -> Resolution
}

/// The changes the server refused (dead letters): listed, sent again, or dropped.
public protocol FailedChangeService: Sendable {
    associatedtype FailedChange: Sendable

    func failedChanges() async throws -> [FailedChange]
    /// Queues the change to be sent again on the next sync.
    func retry(failedChange id: Int64) async throws
    /// Drops the change and restores the server's version.
    func discard(failedChange id: Int64) async throws
}

/// The reader's history of operations, what of it the server has not seen yet, and
/// taking one step back (undo) or forward (redo). An undo or redo is judged first (a
/// `Step`, which says what needs the reader's yes) and carried out once confirmed.
public protocol PendingChangeService: Sendable {
    /// What waits for the next sync.
    associatedtype Pending: Sendable
    /// One operation of the history.
    associatedtype Entry: Sendable
    /// An undo or redo, judged before it is done.
    associatedtype Step: ConfirmableChange
    /// What an undo or redo did.
    associatedtype Done: Sendable

    func pendingChanges() async throws -> Pending
    /// The history, oldest first.
    func history() async throws -> [Entry]
    func planUndo(_ target: UndoTarget) async throws -> Step
    /// The last operation undone, put back.
    func planRedo() async throws -> Step
    /// Does what the step says, unless the store changed so that it needs another yes.
    func carryOut(_ step: Step) async throws -> Done
}

/// What an undo takes back.
public enum UndoTarget: Hashable, Sendable {
    /// The last operation in effect.
    case last
    /// The last operation that changed a record (its id or a unique prefix of it, in a
    /// collection or in any); a record's waiting changes when no operation did.
    case record(CollectionName?, String)
    /// One operation of the history, by its number.
    case operation(Int64)
}

/// A change judged before it is made: why it needs the reader's yes, if it does (a
/// record it removes, a later change it would lose).
public protocol ConfirmableChange: Sendable {
    /// Each thing the reader must agree to, as a sentence; empty when nothing needs a yes.
    var confirmationReasons: [String] { get }
}
