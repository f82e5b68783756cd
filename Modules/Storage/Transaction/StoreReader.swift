import Domain
import Foundation
import Records

// MARK: - StoreReader

/// The queries of the store, valid inside one `ShelfStore.read` or `write` block.
///
/// Lists never include records waiting for a pushed deletion; `record(_:id:)` finds
/// them only when asked (`includingDeleted`), which the sync engine needs and a
/// screen does not.
public class StoreReader {
    let connection: SQLiteConnection
    private var isOpen = true

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Called when the block returns: later use throws `transactionFinished`.
    func finish() {
        isOpen = false
    }

    /// The pull's bulk load this transaction carries on, if any (a read carries none):
    /// while it loads, the collection's only rows are those it inserted.
    var bulkLoadUnderWay: BulkLoad? { nil }

    /// The connection, while the block that owns it is running.
    var db: SQLiteConnection {
        get throws(StorageError) {
            guard isOpen else { throw .transactionFinished }
            return connection
        }
    }

    // MARK: - Records

    /// One record by id.
    /// - Parameter includingDeleted: also return a row waiting for its pushed deletion.
    public func record(_ collection: CollectionName, id: String, includingDeleted: Bool = false) throws(StorageError) -> StoredRecord? {
        let record = try db.queryFirst(
            "SELECT \(Self.recordColumns) FROM records WHERE collection = ? AND id = ?",
            [.text(collection.rawValue), .text(id)], operation: "read \(collection.rawValue) record",
            row: Self.storedRecord
        )
        guard let record, includingDeleted || !record.isDeleted else { return nil }
        return record
    }

    /// Live records matching `query`, in its order (by default the collection's sort key,
    /// then id); last first when it is `reversed`.
    public func records(_ query: RecordQuery) throws(StorageError) -> [StoredRecord] {
        let (sql, parameters) = try Self.listingSQL(query)
        return try db.query(sql, parameters, operation: "list \(query.collection.rawValue)", row: Self.storedRecord)
    }

    /// How many live records match `query` (its limit, offset, anchor and direction are ignored).
    public func count(_ query: RecordQuery) throws(StorageError) -> Int {
        if query.isWholeCollection { return try wholeCount(query.collection) }
        let (sql, parameters) = Self.countSQL(query)
        return try db.queryFirst(sql, parameters, operation: "count \(query.collection.rawValue)") { $0.int(0) } ?? 0
    }

    /// Whether the collection holds any live record: the first row of the listing index,
    /// not a count of them all.
    public func hasRecords(_ collection: CollectionName) throws(StorageError) -> Bool {
        try db.queryFirst(
            "SELECT 1 FROM records WHERE collection = ? AND deleted = 0 LIMIT 1", [.text(collection.rawValue)],
            operation: "look for \(collection.rawValue)") { _ in true } ?? false
    }

    /// SQLite's plan for listing (or counting) `query`, one line per step — to check
    /// that searches stay index scans.
    func queryPlan(_ query: RecordQuery, counting: Bool) throws(StorageError) -> [String] {
        let (sql, parameters) = counting ? Self.countSQL(query) : try Self.listingSQL(query)
        return try db.query("EXPLAIN QUERY PLAN " + sql, parameters, operation: "explain") { $0.text(3) }
    }

    /// The listing's SQL: the filter, the seek from its anchor, the order (the other way
    /// when reversed), the limit and the offset; with `positions`, the order's key columns
    /// follow the record's (`StoreReader.window`).
    /// - Throws: `corruptValue` for an anchor the order cannot seek from.
    static func listingSQL(_ query: RecordQuery, positions: Bool = false) throws(StorageError) -> (String, [SQLiteValue]) {
        var (filter, parameters) = filter(query)
        var fixedCompletion: ListPosition.Value?
        if let complete = query.complete, query.order.keys.first == .complete {
            // NB: the same rows as `complete = ?` (-1 stands for none), said of the
            // completion index's own column, so the filtered order is one range of it.
            filter += " AND completion_order = ?"
            parameters.append(.integer(complete ? 1 : 0))
            fixedCompletion = .integer(complete ? 1 : 0)
        }
        if let anchor = query.anchor {
            // An anchor inside that range seeks on the keys after the completion alone:
            // SQLite uses a row value that starts with an equality column as the range
            // and would then sort the rest.
            let skipsFirst = fixedCompletion != nil && anchor.position.values.first == fixedCompletion
            let (seek, seekParameters) = try Self.seek(from: anchor, in: query.order, skippingFirstKey: skipsFirst)
            filter += " AND " + seek
            parameters += seekParameters
        }
        var columns = recordColumns
        if positions, let keys = query.order.columns {
            columns += keys.map { ", " + $0.name }.joined()
        }
        let (order, orderParameters) = query.order.clause(reversed: query.reversed)
        return (
            "SELECT \(columns) FROM records WHERE \(filter) ORDER BY \(order) LIMIT ? OFFSET ?",
            parameters + orderParameters + [.integer(Int64(query.limit ?? -1)), .integer(Int64(query.offset))]
        )
    }

    /// The count of a filtered query (a whole collection is counted by `wholeCount`).
    static func countSQL(_ query: RecordQuery) -> (String, [SQLiteValue]) {
        if query.isWholeCollection {
            return (rangeCountSQL, [.text(query.collection.rawValue)])
        }
        let (filter, parameters) = filter(query)
        return ("SELECT count(*) FROM records WHERE \(filter)", parameters)
    }

    /// The WHERE clause for a query. Built from fixed fragments only: every value is a
    /// bound parameter, the fragments only choose which ones apply (and thus which index
    /// SQLite can use).
    private static func filter(_ query: RecordQuery) -> (String, [SQLiteValue]) {
        var clauses = ["collection = ?", "deleted = 0"]
        var parameters: [SQLiteValue] = [.text(query.collection.rawValue)]
        if let complete = query.complete {
            clauses.append("complete = ?")
            parameters.append(.bool(complete))
        }
        if let needle = query.foldedSearch {
            clauses.append("\(TextContainsFunction.name)(\(RecordIndexing.searchColumn(query.collection)), ?)")
            parameters.append(.text(needle))
        }
        if let member = query.member {
            clauses.append("json_extract(json, ?) = ?")
            parameters += [.text(member.path), .text(member.value)]
        }
        if let ids = query.ids {
            // NB: one bound JSON array (an id is escaped by JSONSerialization), so the
            // number of ids never meets SQLite's limit on parameters.
            clauses.append("id IN (SELECT value FROM json_each(?))")
            parameters.append(.text(jsonArray(ids)))
        }
        return (clauses.joined(separator: " AND "), parameters)
    }

    /// Ids as one JSON array of strings, to bind as a single parameter however many
    /// there are.
    ///
    /// NB: written here rather than by JSONSerialization, which bridges every string
    /// and took ~1 ms for 2,000 ids. Quotes, backslashes and control characters are
    /// escaped; everything else (a valid `String` is valid UTF-8) is copied as it is.
    static func jsonArray(_ ids: [String]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(ids.reduce(2) { $0 + $1.utf8.count + 3 })
        for (index, id) in ids.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            for byte in id.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    bytes += [UInt8(ascii: "\\"), byte]
                case ..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                default:
                    bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    static let recordColumns = "collection, id, json, last_modified, deleted"

    static func storedRecord(_ row: SQLiteRow) throws(StorageError) -> StoredRecord {
        StoredRecord(
            collection: try collection(row.text(0)), id: row.text(1), json: row.blob(2),
            lastModified: row.optionalInt64(3), isDeleted: row.bool(4)
        )
    }

    static func collection(_ raw: String) throws(StorageError) -> CollectionName {
        guard let collection = CollectionName(rawValue: raw) else {
            throw .corruptValue(what: "collection name", reason: "unknown collection '\(raw)'")
        }
        return collection
    }

    // MARK: - Outbox

    /// The waiting change of one record, if any.
    public func outboxEntry(_ collection: CollectionName, id: String) throws(StorageError) -> OutboxEntry? {
        try db.queryFirst(
            "SELECT \(Self.outboxColumns) FROM outbox WHERE collection = ? AND record_id = ?",
            [.text(collection.rawValue), .text(id)], operation: "read outbox entry", row: Self.outboxEntry
        )
    }

    /// Whether any change of `collection` waits: one look per pulled page, so a page
    /// needs no look-up per record when none does (every first sync, most pulls).
    public func hasWaitingChanges(in collection: CollectionName) throws(StorageError) -> Bool {
        try db.queryFirst(
            "SELECT EXISTS (SELECT 1 FROM outbox WHERE collection = ?)", [.text(collection.rawValue)],
            operation: "look for waiting \(collection.rawValue) changes"
        ) { $0.bool(0) } ?? false
    }

    /// Waiting changes in push order, with the content to push.
    /// - Parameters:
    ///   - collection: only this collection's changes; nil for all.
    ///   - limit: at most this many (e.g. a batch of 25).
    ///   - skippingConflicts: leave out records with an unresolved conflict, whose push
    ///     would only be refused again until the reader resolves it.
    public func pendingChanges(
        in collection: CollectionName? = nil, limit: Int? = nil, skippingConflicts: Bool = true
    ) throws(StorageError) -> [PendingChange] {
        var sql = """
            SELECT o.seq, o.collection, o.record_id, o.kind, o.base_last_modified, o.created_at, o.updated_at,
                   o.revision, o.sent_revision, o.sent_body, o.sent_lineage_id, o.server_tombstone, r.json
            FROM outbox o JOIN records r ON r.collection = o.collection AND r.id = o.record_id
            """
        var clauses: [String] = []
        var parameters: [SQLiteValue] = []
        if let collection {
            clauses.append("o.collection = ?")
            parameters.append(.text(collection.rawValue))
        }
        if skippingConflicts {
            clauses.append("NOT EXISTS (SELECT 1 FROM conflicts c WHERE c.collection = o.collection AND c.record_id = o.record_id)")
        }
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += " ORDER BY o.seq LIMIT ?"
        parameters.append(.integer(Int64(limit ?? -1)))
        return try db.query(sql, parameters, operation: "list pending changes") { (row) throws(StorageError) in
            PendingChange(entry: try Self.outboxEntry(row), json: row.blob(12))
        }
    }

    /// Local changes waiting to be pushed.
    public func pendingCount(in collection: CollectionName? = nil) throws(StorageError) -> Int {
        if let collection {
            return try db.queryFirst(
                "SELECT count(*) FROM outbox WHERE collection = ?", [.text(collection.rawValue)],
                operation: "count outbox"
            ) { $0.int(0) } ?? 0
        }
        return try db.queryFirst("SELECT count(*) FROM outbox", operation: "count outbox") { $0.int(0) } ?? 0
    }

    static let outboxColumns = "seq, collection, record_id, kind, base_last_modified, created_at, updated_at, revision, sent_revision, sent_body, sent_lineage_id, server_tombstone"

    static func outboxEntry(_ row: SQLiteRow) throws(StorageError) -> OutboxEntry {
        OutboxEntry(
            sequence: row.int64(0), collection: try collection(row.text(1)), recordID: row.text(2),
            kind: try kind(row.text(3)), baseLastModified: row.optionalInt64(4),
            createdAt: row.date(5), updatedAt: row.date(6), revision: row.int64(7),
            sentRevision: row.optionalInt64(8), sentBody: row.optionalBlob(9),
            sentLineageID: row.optionalText(10), serverTombstone: row.optionalInt64(11)
        )
    }

    static func kind(_ raw: String) throws(StorageError) -> OutboxEntry.Kind {
        guard let kind = OutboxEntry.Kind(rawValue: raw) else {
            throw .corruptValue(what: "outbox kind", reason: "unknown kind '\(raw)'")
        }
        return kind
    }

    // MARK: - Base snapshots

    /// The server's version of a record with a waiting local change.
    public func base(_ collection: CollectionName, id: String) throws(StorageError) -> BaseSnapshot? {
        try db.queryFirst(
            "SELECT json, last_modified FROM base_snapshots WHERE collection = ? AND id = ?",
            [.text(collection.rawValue), .text(id)], operation: "read base snapshot"
        ) { row in
            BaseSnapshot(collection: collection, recordID: id, json: row.blob(0), lastModified: row.int64(1))
        }
    }

    // MARK: - Sync state

    /// A collection's sync state; an empty state before its first sync.
    public func syncState(_ collection: CollectionName) throws(StorageError) -> SyncState {
        try db.queryFirst(
            "SELECT \(Self.syncStateColumns) FROM sync_state WHERE collection = ?",
            [.text(collection.rawValue)], operation: "read sync state", row: Self.syncState
        ) ?? SyncState(collection: collection)
    }

    /// The sync state of every collection that has synced (or tried to), in
    /// `CollectionName` order.
    public func syncStates() throws(StorageError) -> [SyncState] {
        try db.query("SELECT \(Self.syncStateColumns) FROM sync_state", operation: "list sync state", row: Self.syncState)
            .sorted { $0.collection < $1.collection }
    }

    static let syncStateColumns = """
        collection, cursor, etag, backoff_until, last_success, last_error, last_error_at, next_page,
        collection_timestamp, recovering, cursor_before_recovery, pushed_timestamp,
        settled, server_clock, server_clock_at, last_reconciled,
        reconciled_through, reconciling_from, swept_through
        """

    static func syncState(_ row: SQLiteRow) throws(StorageError) -> SyncState {
        SyncState(
            collection: try collection(row.text(0)), cursor: row.optionalInt64(1), etag: row.optionalText(2),
            backoffUntil: row.optionalDate(3), lastSuccess: row.optionalDate(4), lastError: row.optionalText(5),
            lastErrorAt: row.optionalDate(6), nextPage: row.optionalText(7),
            collectionTimestamp: row.optionalInt64(8), recovering: row.bool(9),
            cursorBeforeRecovery: row.optionalInt64(10), pushedTimestamp: row.optionalInt64(11),
            settled: row.optionalInt64(12),
            serverClock: ServerClockReading(timestamp: row.optionalInt64(13), seenAt: row.optionalDate(14)),
            lastReconciled: row.optionalDate(15), reconciledThrough: row.optionalInt64(16),
            reconcilingFrom: row.optionalInt64(17), sweptThrough: row.optionalInt64(18)
        )
    }

    // MARK: - Conflicts

    /// Unresolved conflicts, oldest first.
    public func conflicts(in collection: CollectionName? = nil) throws(StorageError) -> [Conflict] {
        if let collection {
            return try db.query(
                "SELECT \(Self.conflictColumns) FROM conflicts WHERE collection = ? ORDER BY detected_at, record_id",
                [.text(collection.rawValue)], operation: "list conflicts", row: Self.conflict
            )
        }
        return try db.query(
            "SELECT \(Self.conflictColumns) FROM conflicts ORDER BY detected_at, collection, record_id",
            operation: "list conflicts", row: Self.conflict
        )
    }

    public func conflict(_ collection: CollectionName, id: String) throws(StorageError) -> Conflict? {
        try db.queryFirst(
            "SELECT \(Self.conflictColumns) FROM conflicts WHERE collection = ? AND record_id = ?",
            [.text(collection.rawValue), .text(id)], operation: "read conflict", row: Self.conflict
        )
    }

    public func conflictCount() throws(StorageError) -> Int {
        try db.queryFirst("SELECT count(*) FROM conflicts", operation: "count conflicts") { $0.int(0) } ?? 0
    }

    static let conflictColumns = "collection, record_id, base, local, remote, remote_last_modified, detected_at"

    static func conflict(_ row: SQLiteRow) throws(StorageError) -> Conflict {
        Conflict(
            collection: try collection(row.text(0)), recordID: row.text(1), base: row.optionalBlob(2),
            local: row.optionalBlob(3), remote: row.optionalBlob(4), remoteLastModified: row.optionalInt64(5),
            detectedAt: row.date(6)
        )
    }

    // MARK: - Dead letters

    /// Refused changes, oldest refusal first.
    public func deadLetters() throws(StorageError) -> [DeadLetter] {
        try db.query(
            "SELECT \(Self.deadLetterColumns) FROM dead_letters ORDER BY failed_at, id",
            operation: "list dead letters", row: Self.deadLetter
        )
    }

    public func deadLetter(id: Int64) throws(StorageError) -> DeadLetter? {
        try db.queryFirst(
            "SELECT \(Self.deadLetterColumns) FROM dead_letters WHERE id = ?", [.integer(id)],
            operation: "read dead letter", row: Self.deadLetter
        )
    }

    public func deadLetterCount() throws(StorageError) -> Int {
        try db.queryFirst("SELECT count(*) FROM dead_letters", operation: "count dead letters") { $0.int(0) } ?? 0
    }

    static let deadLetterColumns = "id, collection, record_id, kind, base_last_modified, json, status, reason, queued_at, failed_at"

    static func deadLetter(_ row: SQLiteRow) throws(StorageError) -> DeadLetter {
        DeadLetter(
            id: row.int64(0), collection: try collection(row.text(1)), recordID: row.text(2),
            kind: try kind(row.text(3)), baseLastModified: row.optionalInt64(4), json: row.blob(5),
            status: row.int(6), reason: row.text(7), queuedAt: row.date(8), failedAt: row.date(9)
        )
    }

    // MARK: - Summary

    /// The sync summary for the status screen and `shelf status`.
    ///
    /// `lastSuccess` is the start of the last complete sync (`lastCompleteSync`): a run
    /// that pulled every collection and sent every change it could. A run whose push
    /// failed, or a read's refresh of one collection, does not move it.
    /// `backoffUntil` is the latest a server asked for. `lastError` says each cause once,
    /// with the collections it hit ("books, notes: …; products: …"), in the order the
    /// collections sync.
    public func syncStatus() throws(StorageError) -> SyncStatus {
        let states = try syncStates()
        var causes: [String] = []
        var hit: [String: [String]] = [:]
        for state in states.sorted(by: { Self.syncOrder($0.collection) < Self.syncOrder($1.collection) }) {
            guard let message = state.lastError else { continue }
            if hit[message] == nil { causes.append(message) }
            hit[message, default: []].append(state.collection.rawValue)
        }
        let errors = causes.map { cause in "\(hit[cause, default: []].joined(separator: ", ")): \(cause)" }
        return SyncStatus(
            lastSuccess: try lastCompleteSync(),
            pendingChanges: try pendingCount(),
            conflicts: try conflictCount(),
            deadLetters: try deadLetterCount(),
            backoffUntil: states.compactMap(\.backoffUntil).max(),
            lastError: errors.isEmpty ? nil : errors.joined(separator: "; "),
            restingTicks: try idleStreak().ticksToRest
        )
    }

    private static func syncOrder(_ collection: CollectionName) -> Int {
        CollectionName.allCases.firstIndex(of: collection) ?? Int.max
    }

    // MARK: - Preferences

    /// The stored bytes of one preference, nil when never set.
    func preference(_ key: String) throws(StorageError) -> Data? {
        try db.queryFirst(
            "SELECT value FROM preferences WHERE key = ?", [.text(key)], operation: "read preference \(key)"
        ) { $0.blob(0) }
    }

    // MARK: - Health

    /// SQLite's `PRAGMA integrity_check`: `["ok"]` for a sound file, else the problems.
    public func integrityCheck() throws(StorageError) -> [String] {
        try db.query("PRAGMA integrity_check", operation: "check integrity") { $0.text(0) }
    }

    /// Rows that break the outbox's foreign key (`PRAGMA foreign_key_check`); empty
    /// for a consistent store.
    public func foreignKeyViolations() throws(StorageError) -> [String] {
        try db.query("PRAGMA foreign_key_check", operation: "check foreign keys") { row in
            "\(row.text(0)) rowid \(row.optionalInt64(1).map(String.init) ?? "?") → \(row.text(2))"
        }
    }
}

// MARK: - References between records

extension StoreReader {
    /// The ids of the live records of `collection` whose top-level string `field` equals
    /// `value` — e.g. the notes or reading sessions about one book (`book_id`).
    ///
    /// A scan of the collection's rows reading one JSON member each; fine for the
    /// occasional check before a removal, not for a listing.
    /// - Parameter field: a member name of letters, digits and `_` (anything else finds nothing).
    public func recordIDs(_ collection: CollectionName, field: String, equals value: String) throws(StorageError) -> [String] {
        guard !field.isEmpty, field.utf8.allSatisfy({ byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }) else { return [] }
        return try db.query(
            "SELECT id FROM records WHERE collection = ? AND deleted = 0 AND json_extract(json, ?) = ? ORDER BY id",
            [.text(collection.rawValue), .text("$." + field), .text(value)],
            operation: "find \(collection.rawValue) records by \(field)"
        ) { $0.text(0) }
    }
}
