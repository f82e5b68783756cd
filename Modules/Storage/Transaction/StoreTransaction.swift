import Domain
import Foundation
import Records

// MARK: - StoreTransaction

/// The operations of one `ShelfStore.write` block, committed together.
///
/// Grouped by who calls them:
/// - local edits (repositories): `saveLocal`, `deleteLocal` — the record and its
///   outbox entry change together; inside `ShelfStore.edit`, with the operation that
///   records them in the history (`recordOperation`);
/// - the sync engine: plain row, base-snapshot and outbox writes (`writeRecord`,
///   `storePulled`, `writeBase`, `writeOutbox`, `markSent`…), sync state, conflicts
///   and dead letters. What those writes mean — when a change is acknowledged, how it
///   is rebased — is decided by the engine's rules (`SyncRules` in Sync), which call
///   them inside one transaction.
/// It also answers every query of `StoreReader`, seeing its own uncommitted writes.
public final class StoreTransaction: StoreReader {
    let clock: SyncClock
    let faults: FaultInjection
    /// Folds the search and sort columns of the records this transaction writes.
    var folder = SearchText.Folder()

    /// The pull's bulk load this transaction may carry on (`ShelfStore.write(bulkLoad:_:)`).
    let bulkLoad: BulkLoad?

    override var bulkLoadUnderWay: BulkLoad? { bulkLoad }

    /// The records a reader's edit touched, recorded as one operation of the history when
    /// the edit's body returns; nil outside `ShelfStore.edit` (the sync engine's writes
    /// are not the reader's operations).
    var journal: OperationJournal?

    init(connection: SQLiteConnection, clock: SyncClock, faults: FaultInjection, bulkLoad: BulkLoad? = nil) {
        self.clock = clock
        self.faults = faults
        self.bulkLoad = bulkLoad
        super.init(connection: connection)
    }

    // MARK: - Local edits

    /// Writes a record the reader created or changed, and records the change in the
    /// outbox — both or neither.
    ///
    /// The first edit of a synced record snapshots the row as the merge base and queues
    /// an `update` against its `last_modified`; later edits keep that base (see
    /// `OutboxEntry.Kind.coalescing(_:with:)`). A record the server has never seen is
    /// queued as a `create`.
    /// - Parameters:
    ///   - id: the record id (validated like every id the server stores).
    ///   - json: the record as a JSON object in the wire shape; an `id` field, when
    ///     present, must equal `id`.
    /// - Returns: the record's outbox entry after the edit.
    /// - Throws: `StorageError.readOnlyCollection` for `products`; `.invalidRecord`.
    @discardableResult
    public func saveLocal(_ collection: CollectionName, id: String, json: Data) throws(StorageError) -> OutboxEntry {
        guard !collection.isReadOnly else { throw .readOnlyCollection(collection) }
        try Self.validate(id: id, in: collection)
        let indexing = try indexing(collection, id: id, json: json, requireID: false)
        let existing = try record(collection, id: id, includingDeleted: true)
        journal?.noteBefore(collection, id: id, existing: existing, saving: true)
        let waiting = try outboxEntry(collection, id: id)

        let kind: OutboxEntry.Kind
        let base: Int64?
        if let waiting, waiting.isInFlight {
            // The request sent stays as it was; this edit waits behind it.
            kind = waiting.kind
            base = waiting.baseLastModified
        } else if let waiting {
            // NB: the force unwrap is safe: a save never makes an entry disappear.
            kind = OutboxEntry.Kind.coalescing(waiting.kind, with: .save)!
            base = kind == .create ? nil : waiting.baseLastModified
        } else if let existing, let lastModified = existing.lastModified {
            kind = .update
            base = lastModified
            try writeBase(BaseSnapshot(collection: collection, recordID: id, json: existing.json, lastModified: lastModified))
        } else {
            kind = .create
            base = nil
        }

        try writeRecord(
            collection, id: id, json: json, lastModified: existing?.lastModified, deleted: false, indexing: indexing,
            operation: "save local \(collection.rawValue) record"
        )
        try faults.afterRecordWrite?(collection, id)
        return try writeOutbox(collection, id: id, kind: kind, base: base, waiting: waiting)
    }

    /// Deletes a record locally and queues the deletion — both or neither.
    ///
    /// A record the server has seen stays as a hidden row until the deletion is pushed;
    /// one it has never seen simply disappears with its `create` — unless that create is
    /// in flight: then the server may have it, and the deletion waits behind it.
    /// - Returns: the outbox entry, or nil when nothing is left to tell the server.
    /// - Throws: `StorageError.notFound` when there is no such record.
    @discardableResult
    public func deleteLocal(_ collection: CollectionName, id: String) throws(StorageError) -> OutboxEntry? {
        guard !collection.isReadOnly else { throw .readOnlyCollection(collection) }
        guard let existing = try record(collection, id: id, includingDeleted: true) else {
            throw .notFound(what: "\(collection.rawValue) record '\(id)'")
        }
        journal?.noteBefore(collection, id: id, existing: existing, saving: false)
        let waiting = try outboxEntry(collection, id: id)

        if let waiting, waiting.isInFlight {
            // The server may already have what was sent: the deletion waits behind it
            // and is pushed once the sent request is acknowledged.
            if existing.isDeleted { return waiting }
            try markDeleted(collection, id: id)
            try faults.afterRecordWrite?(collection, id)
            return try writeOutbox(collection, id: id, kind: waiting.kind, base: waiting.baseLastModified, waiting: waiting)
        }
        if let waiting, waiting.kind == .create, try base(collection, id: id) != nil {
            // A create that uploads again a record the server forgot: other devices have
            // it too, so its deletion must reach the server as a tombstone.
            try markDeleted(collection, id: id)
            try faults.afterRecordWrite?(collection, id)
            try queueDeletionOfForgottenRecord(collection, id: id, waiting: waiting)
            return try outboxEntry(collection, id: id)
        }
        if let waiting {
            guard OutboxEntry.Kind.coalescing(waiting.kind, with: .delete) != nil else {
                // create + delete: the server never knew; forget both.
                try removeOutbox(waiting.sequence)
                try removeRecord(collection, id: id)
                return nil
            }
            if waiting.kind == .delete { return waiting }
            try markDeleted(collection, id: id)
            try faults.afterRecordWrite?(collection, id)
            return try writeOutbox(collection, id: id, kind: .delete, base: waiting.baseLastModified, waiting: waiting)
        }
        guard let lastModified = existing.lastModified else {
            // A never-synced row without a queued create cannot be produced by the store's
            // own operations; with nothing to tell the server, removing it is the deletion.
            try removeRecord(collection, id: id)
            return nil
        }
        try writeBase(BaseSnapshot(collection: collection, recordID: id, json: existing.json, lastModified: lastModified))
        try markDeleted(collection, id: id)
        try faults.afterRecordWrite?(collection, id)
        return try writeOutbox(collection, id: id, kind: .delete, base: lastModified, waiting: nil)
    }

    // MARK: - Validation

    static func validate(id: String, in collection: CollectionName) throws(StorageError) {
        do {
            _ = try RecordID.validate(id)
        } catch {
            throw .invalidRecord(collection: collection, id: id, reason: error.description)
        }
    }

    /// Reads the wire fields the store indexes and checks the JSON names the same id.
    /// - Parameter scanned: the fields as the page scanner already read them from
    ///   `json` (`RawRecord.indexedFields`); used when read for this collection, so a
    ///   pulled record's bytes are read once.
    func indexing(
        _ collection: CollectionName, id: String, json: Data, requireID: Bool, scanned: IndexedFields? = nil
    ) throws(StorageError) -> RecordIndexing {
        let fields: WireFields
        if let scanned, scanned.collection == collection {
            fields = scanned.fields
        } else {
            do {
                fields = try WireFields.parse(json, keeping: RecordIndexing.wireNames(for: collection))
            } catch {
                throw .invalidRecord(collection: collection, id: id, reason: "not a JSON object: \(error)")
            }
        }
        switch fields["id"] {
        case .string(let inside) where inside == id:
            break
        case nil where !requireID:
            break
        case .string(let inside):
            throw .invalidRecord(collection: collection, id: id, reason: "its JSON names id '\(inside)'")
        default:
            throw .invalidRecord(collection: collection, id: id, reason: "its JSON has no string 'id'")
        }
        return RecordIndexing(collection: collection, fields: fields, folder: &folder)
    }
}
