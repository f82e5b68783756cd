import Domain
import Foundation

// MARK: - HistoryEntry

/// One operation of the reader's history as `shelf history`, `shelf pending` and
/// `shelf ui`'s `P` list it: what made it, what it did to which records, whether it is
/// in effect, and whether the server has it yet.
public struct HistoryEntry: Hashable, Sendable, Identifiable {
    public enum State: String, Hashable, Sendable {
        /// In effect: `undo` can take it back.
        case done
        /// Taken back: `redo` can put it back, until another operation is made.
        case undone
    }

    /// What an operation did to one collection.
    public struct Tally: Hashable, Sendable {
        public var added: Int
        public var changed: Int
        public var removed: Int

        public init(added: Int = 0, changed: Int = 0, removed: Int = 0) {
            self.added = added
            self.changed = changed
            self.removed = removed
        }
    }

    /// Where the operation's changes are on their way to the server.
    public enum Delivery: String, Hashable, Sendable {
        /// Every change reached the server (or there was nothing to send).
        case synced
        /// A change waits for the next sync.
        case waiting
        /// A change was sent and its answer is not known yet.
        case sent
        /// A change is held by a conflict (`shelf resolve`).
        case conflict
        /// Not known: the operation was too large to keep its records.
        case unknown
    }

    public var operation: Int64
    public var madeAt: Date
    /// The command that made it (`book edit`), or `ui`.
    public var origin: String
    public var state: State
    public var delivery: Delivery
    /// The operation this one took back (a selective undo), if it did.
    public var reverts: Int64?
    /// False when the operation was too large to keep its records: listed, never undone.
    public var isUndoable: Bool
    /// The records it changed, in the order it changed them (none when not undoable).
    public var records: [HistoryRecord]
    /// How many records it changed (also when `records` is empty).
    public var recordCount: Int
    /// Per collection: records added, changed and removed.
    public var tally: [CollectionName: Tally]

    public var id: Int64 { operation }

    public init(
        operation: Int64, madeAt: Date, origin: String, state: State, delivery: Delivery, reverts: Int64?,
        isUndoable: Bool, records: [HistoryRecord], recordCount: Int, tally: [CollectionName: Tally]
    ) {
        self.operation = operation
        self.madeAt = madeAt
        self.origin = origin
        self.state = state
        self.delivery = delivery
        self.reverts = reverts
        self.isUndoable = isUndoable
        self.records = records
        self.recordCount = recordCount
        self.tally = tally
    }
}

// MARK: - HistoryRecord

/// What one operation did to one record.
public struct HistoryRecord: Hashable, Sendable {
    public enum Change: String, Hashable, Sendable {
        case added, changed, removed
    }

    public var collection: CollectionName
    public var id: String
    /// Its title (or what it holds), as it was after the operation, or before when the
    /// operation removed it.
    public var label: String?
    public var change: Change
    /// The fields it changed (wire names, sorted); empty for an addition or removal.
    public var fields: [String]

    public init(collection: CollectionName, id: String, label: String?, change: Change, fields: [String]) {
        self.collection = collection
        self.id = id
        self.label = label
        self.change = change
        self.fields = fields
    }
}
