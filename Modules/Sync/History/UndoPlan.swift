import Domain
import Foundation
import Storage

// MARK: - UndoPlan

/// What an undo or a redo would do, judged before anything is written: which operation
/// (or which record's unsynced changes), and what in it needs the reader's yes — a record
/// removed, a change made since that would be lost. `OperationHistory.carryOut` judges it
/// again inside its transaction and refuses when the answer changed meanwhile.
public struct UndoPlan: Hashable, Sendable, ConfirmableChange {
    public enum Direction: String, Hashable, Sendable {
        case undo, redo
    }

    /// What is taken back or put back.
    public enum Subject: Hashable, Sendable {
        /// An operation of the history: the last one in effect (or, for a redo, the first
        /// undone); `selective` when it is an older one (`undo ID`), taken back by a new
        /// operation that `undo` can take back in turn.
        case operation(Int64, selective: Bool)
        /// A record's changes not synced yet that no operation of the history holds (made
        /// before the history, by a conflict's resolution, or gone from it): its synced
        /// version comes back.
        case unsyncedChanges(CollectionName, String)
    }

    public var direction: Direction
    public var subject: Subject
    /// The operation, as the history lists it (nil for `unsyncedChanges`).
    public var entry: HistoryEntry?
    public var warnings: [UndoWarning]

    public init(direction: Direction, subject: Subject, entry: HistoryEntry?, warnings: [UndoWarning]) {
        self.direction = direction
        self.subject = subject
        self.entry = entry
        self.warnings = warnings
    }

    public var confirmationReasons: [String] { warnings.map(\.description) }
}

// MARK: - UndoWarning

/// Something an undo or redo does that the reader must agree to.
public enum UndoWarning: Hashable, Sendable, CustomStringConvertible {
    /// The record goes away (the undo of its creation).
    case removes(UndoError.Record)
    /// A field changed since the operation (`by`: a later operation, or a sync) is set
    /// back, and that later change is lost.
    case overwrites(UndoError.Record, field: String, now: String, becomes: String, by: String)
    /// The record was removed since; undoing brings it back.
    case bringsBack(UndoError.Record, by: String)
    /// The record was changed since; removing it loses that change too.
    case removesChangedSince(UndoError.Record, by: String)
    /// Every change to the record not synced yet is discarded, not only the last one.
    case discardsUnsyncedChanges(UndoError.Record)

    public var description: String {
        switch self {
        case .removes(let record):
            return "removes \(record.described)"
        case .overwrites(let record, let field, let now, let becomes, let by):
            return "sets \(record.described)'s \(field) back to \(becomes): it was changed since \(by), to \(now), "
                + "and that change is lost"
        case .bringsBack(let record, let by):
            return "brings back \(record.described), removed since \(by)"
        case .removesChangedSince(let record, let by):
            return "removes \(record.described), changed since \(by): that change is lost too"
        case .discardsUnsyncedChanges(let record):
            return "discards every change to \(record.described) not synced yet (they are outside the history), "
                + "putting back the version last synced"
        }
    }
}

// MARK: - UndoOutcome

/// What an undo or a redo did.
public struct UndoOutcome: Hashable, Sendable {
    public enum RecordOutcome: String, Hashable, Sendable {
        /// The record is gone.
        case removed
        /// The record is back as it was (before the operation, for an undo).
        case restored
        /// Some of its fields were set back.
        case changed
        /// It already was as the undo would leave it.
        case unchanged
    }

    public struct Record: Hashable, Sendable {
        public var collection: CollectionName
        public var id: String
        public var label: String?
        public var outcome: RecordOutcome
        /// The fields set back (changed), sorted.
        public var fields: [String]

        public init(collection: CollectionName, id: String, label: String?, outcome: RecordOutcome, fields: [String]) {
            self.collection = collection
            self.id = id
            self.label = label
            self.outcome = outcome
            self.fields = fields
        }
    }

    public var direction: UndoPlan.Direction
    /// The operation taken back or put back (nil when a record's unsynced changes were discarded).
    public var entry: HistoryEntry?
    public var records: [Record]
    /// The operation a selective undo made to take an older one back (`undo` takes it back).
    public var revertedBy: Int64?
    /// Whether `redo` can put it back now.
    public var canRedo: Bool

    public init(direction: UndoPlan.Direction, entry: HistoryEntry?, records: [Record], revertedBy: Int64?, canRedo: Bool) {
        self.direction = direction
        self.entry = entry
        self.records = records
        self.revertedBy = revertedBy
        self.canRedo = canRedo
    }
}
