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

/// The local changes the server has not seen yet, and taking one back.
public protocol PendingChangeService: Sendable {
    associatedtype Change: Sendable
    associatedtype Undone: Sendable

    func pendingChanges() async throws -> [Change]
    /// Takes back the record's change, or the latest one when `id` is nil.
    func undo(_ collection: CollectionName?, id: String?) async throws -> Undone
}
