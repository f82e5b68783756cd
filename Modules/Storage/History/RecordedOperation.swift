import Domain
import Foundation

// MARK: - RecordedOperation

/// One operation of the reader's history: a local write (a command, a key in `shelf ui`,
/// an import) as `ShelfStore.edit` recorded it, in the same transaction as the write.
/// What undoing or redoing it means is decided in Sync (`OperationHistory`).
public struct RecordedOperation: Hashable, Sendable, Identifiable {
    public enum State: String, Hashable, Sendable {
        /// In effect: `undo` can take it back.
        case done
        /// Taken back: `redo` can put it back, until another operation is made.
        case undone
    }

    /// Its place in the history (never reused).
    public var sequence: Int64
    public var madeAt: Date
    /// What made it: the command (`book edit`), `ui`, `import`.
    public var origin: String
    public var state: State
    /// The operation this one took back (a selective undo), if it did.
    public var reverts: Int64?
    /// False when it was too large to keep its records' versions: listed, never undone.
    public var isComplete: Bool
    /// How many records it changed.
    public var records: Int
    /// The size of the versions it keeps, in bytes (the history's bound counts them).
    public var bytes: Int
    /// Per collection: records added, changed and removed.
    public var tally: [CollectionName: OperationTally]

    public var id: Int64 { sequence }

    public init(
        sequence: Int64, madeAt: Date, origin: String, state: State, reverts: Int64?, isComplete: Bool, records: Int,
        bytes: Int, tally: [CollectionName: OperationTally]
    ) {
        self.sequence = sequence
        self.madeAt = madeAt
        self.origin = origin
        self.state = state
        self.reverts = reverts
        self.isComplete = isComplete
        self.records = records
        self.bytes = bytes
        self.tally = tally
    }
}

// MARK: - OperationTally

/// What one operation did to one collection.
public struct OperationTally: Hashable, Sendable {
    public var added = 0
    public var changed = 0
    public var removed = 0

    public init(added: Int = 0, changed: Int = 0, removed: Int = 0) {
        self.added = added
        self.changed = changed
        self.removed = removed
    }
}

// MARK: - RecordedChange

/// One record an operation changed: its JSON before and after (nil: no record — not
/// there, or deleted), and the outbox entry the change went into.
public struct RecordedChange: Hashable, Sendable {
    public var operation: Int64
    /// Its order within the operation.
    public var position: Int
    public var collection: CollectionName
    public var recordID: String
    public var before: Data?
    public var after: Data?
    /// The outbox entry (`OutboxEntry.sequence`) that held the change when it was made;
    /// the change has not reached the server while that entry is there.
    public var outboxSequence: Int64?

    public init(
        operation: Int64, position: Int, collection: CollectionName, recordID: String, before: Data?, after: Data?,
        outboxSequence: Int64?
    ) {
        self.operation = operation
        self.position = position
        self.collection = collection
        self.recordID = recordID
        self.before = before
        self.after = after
        self.outboxSequence = outboxSequence
    }
}

// MARK: - RecordedEdit

/// What an edit's body returned, and the operation it recorded (nil when nothing changed).
public struct RecordedEdit<Result: Sendable>: Sendable {
    public let result: Result
    public let operation: Int64?
}

// MARK: - OutboxDelivery

/// An outbox entry as the history needs it: which record, and whether it is in flight.
public struct OutboxDelivery: Hashable, Sendable {
    public var collection: CollectionName
    public var recordID: String
    public var isInFlight: Bool
}

// MARK: - OperationHistoryLimits

/// How much history the store keeps: it is bounded in operations and in bytes, the
/// oldest going first, and an operation too large to keep whole is recorded without its
/// versions (listed, never undone).
public enum OperationHistoryLimits {
    /// The most operations kept, undone ones included.
    public static let maximumOperations = 200
    /// The most bytes of versions kept, all operations together.
    public static let maximumBytes = 16 * 1024 * 1024
    /// An operation that changes more records than this keeps none of their versions.
    public static let maximumRecordsPerOperation = 2_000
    /// An operation whose versions take more bytes than this keeps none of them.
    public static let maximumBytesPerOperation = 4 * 1024 * 1024
}
