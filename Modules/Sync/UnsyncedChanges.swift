import Domain
import Foundation
import Repositories
import Storage

// MARK: - UnsyncedChanges

/// The reader's changes the server has not acknowledged yet (`shelf pending`), and
/// taking one back before it is sent (`shelf undo`).
///
/// A record has at most one waiting change: several edits before a sync fold into one
/// (`OutboxEntry.Kind.coalescing`). Undoing it puts the record back as the server last
/// had it — the base snapshot the store took at the first edit — in one transaction
/// with the removal of the outbox entry, so a kill at any point leaves either the
/// change or its undoing, never half of each, and the next sync has nothing to send for
/// it: the server's version stands here too. A change already sent is in flight (the
/// server may have applied it) and is not undone this way: only a new edit, after the
/// sync that settles it, can change the record back.
public struct UnsyncedChanges: Sendable {
    public let store: ShelfStore

    public init(store: ShelfStore) {
        self.store = store
    }

    /// Every waiting change, the least recently changed first: the last one is what
    /// `undoLatest()` takes back.
    public func list() throws -> [UnsyncedChange] {
        try store.read { reader in
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
    }

    /// Takes back the most recently made change.
    /// - Throws: `UndoError.nothingToUndo` when nothing waits; see `undo(_:id:)`.
    @discardableResult
    public func undoLatest() throws -> UndoneChange {
        try store.write { tx in
            guard let latest = try tx.mostRecentlyChangedEntry() else { throw UndoError.nothingToUndo }
            return try Self.undo(latest, in: tx)
        }
    }

    /// Takes back the waiting change to one record: its full id, else a unique prefix of
    /// it (at least `ShortID.minimumTypedLength` characters) among the waiting changes.
    /// - Parameter collection: nil looks for the id in every collection.
    /// - Throws: `UndoError.noChange` when the record has none; `.ambiguous` when the id
    ///   has changes in several collections; `.alreadySent`, `.inConflict`,
    ///   `.notAnEdit`, `.referenced` when the change cannot be taken back (nothing changes).
    @discardableResult
    public func undo(_ collection: CollectionName?, id: String) throws -> UndoneChange {
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

    // MARK: Undoing

    private static func undo(_ entry: OutboxEntry, in tx: StoreTransaction) throws -> UndoneChange {
        let collection = entry.collection, id = entry.recordID
        let row = try tx.record(collection, id: id, includingDeleted: true)
        let base = try tx.base(collection, id: id)
        // NB: an undone creation is named as it was; anything else as it is again (the base).
        let label = RecordLabel.of(entry.kind == .create ? row?.json : base?.json ?? row?.json, in: collection)
        let reference = UndoError.Record(collection: collection, id: id, label: label)
        if entry.isInFlight { throw UndoError.alreadySent(reference) }
        if try tx.conflict(collection, id: id) != nil { throw UndoError.inConflict(reference) }
        if entry.kind == .create, base != nil { throw UndoError.notAnEdit(reference) }
        if entry.kind == .create, collection == .books {
            let references = try BookRemoval.references(to: id, in: tx)
            if !references.isEmpty { throw UndoError.referenced(reference, references) }
        }
        try SyncRules(tx).discardLocalChange(collection, id: id)
        return UndoneChange(
            collection: collection, recordID: id, change: entry.kind, label: label,
            outcome: entry.kind == .create ? .removed : .restoredSyncedVersion)
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
    /// The push order, which breaks ties between changes made in the same millisecond.
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

/// Why a change could not be taken back; nothing changed.
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
    case noChange(collection: CollectionName?, id: String)
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
            return "nothing to undo: every change has been synced"
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
