import Domain
import Foundation
import Storage

// MARK: - UnsyncedChanges

/// The reader's changes the server has not acknowledged yet, one per record (what the
/// next sync sends), and discarding one record's before it is sent.
///
/// A record has at most one waiting change: several edits before a sync fold into one
/// (`OutboxEntry.Kind.coalescing`). The reader's steps are the operations of the
/// history (`OperationHistory`), which `shelf undo` takes back one at a time; discarding
/// is for a waiting change no operation holds (made before the history, by a conflict's
/// resolution, or gone from it): it puts the record back as the server last had it — the
/// base snapshot the store took at the first edit — in one transaction with the removal
/// of the outbox entry, so a kill at any point leaves either the change or its
/// discarding, never half of each, and the next sync has nothing to send for it. A change
/// already sent is in flight (the server may have applied it) and is not discarded: only
/// a new edit, after the sync that settles it, can change the record back.
public struct UnsyncedChanges: Sendable {
    public let store: ShelfStore

    public init(store: ShelfStore) {
        self.store = store
    }

    /// Every waiting change, the least recently changed first.
    public func list() throws -> [UnsyncedChange] {
        try store.read { reader in try Self.list(in: reader) }
    }

    static func list(in reader: StoreReader) throws -> [UnsyncedChange] {
        let conflicted = Set(try reader.conflicts().map { "\($0.collection.rawValue)/\($0.recordID)" })
        return try reader.pendingChanges(skippingConflicts: false)
            .map { change in
                let base = try reader.base(change.entry.collection, id: change.entry.recordID)
                return UnsyncedChange(
                    change, base: base?.json,
                    hasConflict: conflicted.contains("\(change.entry.collection.rawValue)/\(change.entry.recordID)"))
            }
            .sorted(by: Self.leastRecentFirst)
    }

    /// Discards the most recently made change.
    /// - Throws: `UndoError.nothingToUndo` when nothing waits; see `discard(_:id:)`.
    @discardableResult
    public func discardLatest() throws -> UndoneChange {
        try store.write { tx in
            guard let latest = try tx.mostRecentlyChangedEntry() else { throw UndoError.nothingToUndo }
            return try Self.undo(latest, in: tx)
        }
    }

    /// Discards the waiting change to one record: its full id, else a unique prefix of
    /// it (at least `ShortID.minimumTypedLength` characters) among the waiting changes.
    /// - Parameter collection: nil looks for the id in every collection.
    /// - Throws: `UndoError.noChange` when the record has none; `.ambiguous` when the id
    ///   has changes in several collections; `.alreadySent`, `.inConflict`,
    ///   `.notAnEdit`, `.referenced` when the change cannot be discarded (nothing changes).
    @discardableResult
    public func discard(_ collection: CollectionName?, id: String) throws -> UndoneChange {
        try store.write { tx in
            var matches = try (collection.map { [$0] } ?? CollectionName.allCases).compactMap { name in
                try tx.outboxEntry(name, id: id)
            }
            if matches.isEmpty {
                let prefixed = try tx.outboxEntries(idPrefix: id).filter { collection == nil || $0.collection == collection }
                if !prefixed.isEmpty, id.utf8.count < ShortID.minimumTypedLength { throw UndoError.tooShort(id) }
                matches = prefixed
            }
            guard let entry = matches.first else { throw UndoError.noChange(collection: collection, id: id) }
            guard matches.count == 1 else {
                throw UndoError.ambiguous(reference: id, candidates: matches.map { "\($0.collection.rawValue)/\($0.recordID)" })
            }
            return try Self.undo(entry, in: tx)
        }
    }

    // MARK: Discarding

    /// Discards the waiting change to a record, inside `tx` (`OperationHistory` for a
    /// change outside the history).
    static func discard(_ collection: CollectionName, id: String, in tx: StoreTransaction) throws -> UndoneChange {
        guard let entry = try tx.outboxEntry(collection, id: id) else { throw UndoError.noChange(collection: collection, id: id) }
        return try undo(entry, in: tx)
    }

    /// The record whose waiting change would be discarded, and whether discarding removes
    /// it (a creation); throws what `discard` would refuse, without writing anything.
    static func checkDiscardable(
        _ collection: CollectionName, id: String, in reader: StoreReader
    ) throws -> (record: UndoError.Record, removes: Bool) {
        guard let entry = try reader.outboxEntry(collection, id: id) else { throw UndoError.noChange(collection: collection, id: id) }
        return (try refusal(of: entry, in: reader), entry.kind == .create)
    }

    private static func undo(_ entry: OutboxEntry, in tx: StoreTransaction) throws -> UndoneChange {
        let reference = try refusal(of: entry, in: tx)
        try SyncRules(tx).discardLocalChange(entry.collection, id: entry.recordID)
        return UndoneChange(
            collection: entry.collection, recordID: entry.recordID, change: entry.kind, label: reference.label,
            outcome: entry.kind == .create ? .removed : .restoredSyncedVersion)
    }

    /// The record of `entry`, once it is known its change can be discarded.
    /// - Throws: `.alreadySent`, `.inConflict`, `.notAnEdit`, `.referenced`.
    private static func refusal(of entry: OutboxEntry, in reader: StoreReader) throws -> UndoError.Record {
        let collection = entry.collection, id = entry.recordID
        let row = try reader.record(collection, id: id, includingDeleted: true)
        let base = try reader.base(collection, id: id)
        // NB: a discarded creation is named as it was; anything else as it is again (the base).
        let label = RecordLabel.of(entry.kind == .create ? row?.json : base?.json ?? row?.json, in: collection)
        let reference = UndoError.Record(collection: collection, id: id, label: label)
        if entry.isInFlight { throw UndoError.alreadySent(reference) }
        if try reader.conflict(collection, id: id) != nil { throw UndoError.inConflict(reference) }
        if entry.kind == .create, base != nil { throw UndoError.notAnEdit(reference) }
        if entry.kind == .create, collection == .books {
            let references = try reader.references(toBook: id)
            if !references.isEmpty { throw UndoError.referenced(reference, references) }
        }
        return reference
    }

    private static func leastRecentFirst(_ a: UnsyncedChange, _ b: UnsyncedChange) -> Bool {
        (a.changedAt, a.sequence) < (b.changedAt, b.sequence)
    }
}

// MARK: - UnsyncedChange

/// One waiting change as `shelf pending` lists it.
public struct UnsyncedChange: Hashable, Sendable {
    public enum State: String, Hashable, Sendable {
        /// Not sent yet: `shelf undo` can take it back.
        case waiting
        /// Sent, the server's answer not known yet: repeated on the next sync.
        case sent
        /// Held back by a conflict (`shelf resolve`).
        case conflict
    }

    public var collection: CollectionName
    public var recordID: String
    /// What the server is told: create, update or delete.
    public var change: OutboxEntry.Kind
    /// The record's title (or what it holds), for a person to recognise it.
    public var label: String?
    /// When the record was first changed since it was last synced.
    public var since: Date
    /// When it was last changed.
    public var changedAt: Date
    public var state: State
    /// The outbox entry's sequence: the push order, which breaks ties between changes
    /// made in the same millisecond, and what an operation of the history links to.
    public var sequence: Int64

    init(_ pending: PendingChange, base: Data?, hasConflict: Bool) {
        let entry = pending.entry
        collection = entry.collection
        recordID = entry.recordID
        change = entry.kind
        label = RecordLabel.of(pending.json, in: entry.collection) ?? RecordLabel.of(base, in: entry.collection)
        since = entry.createdAt
        changedAt = entry.updatedAt
        state = entry.isInFlight ? .sent : hasConflict ? .conflict : .waiting
        sequence = entry.sequence
    }

    public init(
        collection: CollectionName, recordID: String, change: OutboxEntry.Kind, label: String?, since: Date,
        changedAt: Date, state: State, sequence: Int64
    ) {
        self.collection = collection
        self.recordID = recordID
        self.change = change
        self.label = label
        self.since = since
        self.changedAt = changedAt
        self.state = state
        self.sequence = sequence
    }
}

// MARK: - UndoneChange

/// A change taken back.
public struct UndoneChange: Hashable, Sendable {
    public enum Outcome: String, Hashable, Sendable {
        /// A creation taken back: the record is gone.
        case removed
        /// An edit or deletion taken back: the record is as the server last had it.
        case restoredSyncedVersion = "restored"
    }

    public var collection: CollectionName
    public var recordID: String
    public var change: OutboxEntry.Kind
    public var label: String?
    public var outcome: Outcome

    public init(collection: CollectionName, recordID: String, change: OutboxEntry.Kind, label: String?, outcome: Outcome) {
        self.collection = collection
        self.recordID = recordID
        self.change = change
        self.label = label
        self.outcome = outcome
    }
}

// MARK: - UndoError

/// Why an undo, a redo or a discard could not be done; nothing changed.
public enum UndoError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The record an undo was refused for.
    public struct Record: Hashable, Sendable {
        public var collection: CollectionName
        public var id: String
        public var label: String?

        public init(collection: CollectionName, id: String, label: String?) {
            self.collection = collection
            self.id = id
            self.label = label
        }

        var described: String {
            let noun = switch collection {
            case .books: "book"
            case .notes: "note"
            case .tasks: "task"
            case .cart: "cart line"
            case .products: "product"
            case .preferences: "preferences"
            case .sessions: "reading session"
            }
            return label.map { "\(noun) \(id) (\"\(TerminalEscaping.escaped($0))\")" } ?? "\(noun) \(id)"
        }
    }

    case nothingToUndo
    /// The history holds no operation in effect, but changes made outside it wait.
    case nothingInHistory(waiting: Int)
    case nothingToRedo
    case noChange(collection: CollectionName?, id: String)
    /// An operation number the history does not hold (never, or no longer).
    case noOperation(Int64)
    case alreadyUndone(Int64)
    /// The operation changed too many records for the history to keep them.
    case tooLarge(HistoryEntry)
    /// The store changed since the plan was confirmed, so that it needs another yes.
    case changedMeanwhile(UndoPlan)
    /// Confirmation needed, and none could be asked for (not a terminal, no `--yes`).
    case needsConfirmation(UndoPlan)
    /// The reader answered no.
    case declined
    /// An id or prefix several waiting changes match (`COLLECTION/ID` each).
    case ambiguous(reference: String, candidates: [String])
    /// A prefix shorter than any id may be typed.
    case tooShort(String)
    case alreadySent(Record)
    case inConflict(Record)
    case notAnEdit(Record)
    case referenced(Record, BookReferences)

    public var description: String {
        switch self {
        case .nothingToUndo:
            return "nothing to undo: the history holds no operation in effect and nothing waits"
        case .nothingInHistory(let waiting):
            return "nothing in the history to undo; \(waiting) change\(waiting == 1 ? "" : "s") made outside it "
                + "wait\(waiting == 1 ? "s" : "") ('shelf pending' lists them; 'shelf undo ID' discards one)"
        case .nothingToRedo:
            return "nothing to redo: no operation was undone since the last one was made"
        case .noOperation(let sequence):
            return "the history holds no operation #\(sequence) ('shelf history' lists it)"
        case .alreadyUndone(let sequence):
            return "operation #\(sequence) is already undone; 'shelf redo' puts it back"
        case .tooLarge(let entry):
            return "operation #\(entry.operation) (\(entry.origin), \(entry.recordCount) records) was too large for the history "
                + "to keep, so it cannot be taken back, nor anything before it"
        case .changedMeanwhile:
            return "the store changed while you were asked; nothing was changed: run it again to see what it would do now"
        case .needsConfirmation(let plan):
            return "this \(plan.direction.rawValue) \(plan.confirmationReasons.joined(separator: "; ")); "
                + "run it on a terminal to be asked, or add --yes; nothing was changed"
        case .declined:
            return "nothing was changed"
        case .noChange(let collection, let id):
            return "no unsynced change to \(collection.map { "\($0.rawValue)/" } ?? "")\(id) (see 'shelf pending')"
        case .ambiguous(let reference, let candidates):
            return "'\(reference)' names several unsynced changes: \(candidates.joined(separator: ", ")); give more of the id, or COLLECTION/ID"
        case .tooShort(let reference):
            return "'\(reference)' is too short to name a record: give its full id or at least \(ShortID.minimumTypedLength) characters of it"
        case .alreadySent(let record):
            return "the change to \(record.described) was already sent to the server, which may have applied it, "
                + "so it cannot be taken back here: run 'shelf sync', then change the record again"
        case .inConflict(let record):
            return "\(record.described) has a conflict: settle it with 'shelf resolve \(record.collection.rawValue)/\(record.id)' "
                + "('--keep remote' takes the server's version)"
        case .notAnEdit(let record):
            return "\(record.described) is queued to be uploaded again because the server lost it; that is not an edit to take back"
        case .referenced(let record, let references):
            return "\(record.described) has \(references): undoing its creation would leave them without it; "
                + "undo or remove those first"
        }
    }
}
