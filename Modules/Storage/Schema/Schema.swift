import Domain
import Foundation
import Records

// MARK: - Schema

/// The store's schema history. Version N of a database file is the result of running
/// `migrations[0..<N]` in order; `PRAGMA user_version` records N.
///
/// Migrations are append-only: a released one is never edited, because files in
/// readers' home folders were built by it. A change is a new migration.
enum Schema {
    static let migrations: [Migration] = [
        .v1CoreTables, .v2CompletionAndPaging, .v3OneListingIndex, .v4InFlightAndServerIdentity,
        .v5WriteLineage, .v6AcknowledgedDeletions, .v7RecordsWithoutJSONCheck, .v8DroppableIdentityIndex,
        .v9CommitWindow, .v10OrderIndexes, .v11IntegrityMemory, .v12OperationHistory,
        .v13RangeReconciliation,
    ]

    /// The version this build creates and understands.
    static var currentVersion: Int { migrations.count }
}

// MARK: - Migration

struct Migration: Sendable {
    let version: Int
    let summary: String
    /// Runs inside the migration's transaction; `user_version` is set by the migrator.
    let apply: @Sendable (SQLiteConnection) throws(StorageError) -> Void
}

// MARK: - v1

extension Migration {
    /// Records with their derived sort and search columns, base snapshots, the outbox,
    /// per-collection sync state, conflicts, dead letters and preferences.
    static let v1CoreTables = Migration(version: 1, summary: "core tables") { connection throws(StorageError) in
        try connection.execute(v1SQL, operation: "migrate to v1")
    }

    /// NB: frozen. Files created by this exact text exist; change the schema in a new
    /// migration instead.
    static let v1SQL = """
        CREATE TABLE records (
            collection    TEXT    NOT NULL,
            id            TEXT    NOT NULL,
            json          BLOB    NOT NULL CHECK (json_valid(json)),
            last_modified INTEGER,
            deleted       INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
            sort_key      TEXT    NOT NULL,
            search_text   TEXT    NOT NULL,
            UNIQUE (collection, id)
        );
        CREATE INDEX records_by_sort_key ON records (collection, deleted, sort_key, id);

        CREATE TABLE base_snapshots (
            collection    TEXT    NOT NULL,
            id            TEXT    NOT NULL,
            json          BLOB    NOT NULL,
            last_modified INTEGER NOT NULL,
            PRIMARY KEY (collection, id)
        ) WITHOUT ROWID;

        CREATE TABLE outbox (
            seq                INTEGER PRIMARY KEY AUTOINCREMENT,
            collection         TEXT    NOT NULL,
            record_id          TEXT    NOT NULL,
            kind               TEXT    NOT NULL CHECK (kind IN ('create', 'update', 'delete')),
            base_last_modified INTEGER,
            created_at         INTEGER NOT NULL,
            updated_at         INTEGER NOT NULL,
            revision           INTEGER NOT NULL DEFAULT 1,
            UNIQUE (collection, record_id),
            FOREIGN KEY (collection, record_id) REFERENCES records (collection, id),
            CHECK ((kind = 'create') = (base_last_modified IS NULL))
        );

        CREATE TABLE sync_state (
            collection    TEXT PRIMARY KEY,
            cursor        INTEGER,
            etag          TEXT,
            backoff_until INTEGER,
            last_success  INTEGER,
            last_error    TEXT,
            last_error_at INTEGER
        ) WITHOUT ROWID;

        CREATE TABLE conflicts (
            collection           TEXT    NOT NULL,
            record_id            TEXT    NOT NULL,
            base                 BLOB,
            local                BLOB,
            remote               BLOB,
            remote_last_modified INTEGER,
            detected_at          INTEGER NOT NULL,
            PRIMARY KEY (collection, record_id)
        ) WITHOUT ROWID;

        CREATE TABLE dead_letters (
            id                 INTEGER PRIMARY KEY AUTOINCREMENT,
            collection         TEXT    NOT NULL,
            record_id          TEXT    NOT NULL,
            kind               TEXT    NOT NULL CHECK (kind IN ('create', 'update', 'delete')),
            base_last_modified INTEGER,
            json               BLOB    NOT NULL,
            status             INTEGER NOT NULL,
            reason             TEXT    NOT NULL,
            queued_at          INTEGER NOT NULL,
            failed_at          INTEGER NOT NULL
        );

        CREATE TABLE preferences (
            key   TEXT PRIMARY KEY,
            value BLOB NOT NULL
        ) WITHOUT ROWID;
        """
}

// MARK: - v2

extension Migration {
    /// `records.complete` (books `finished`, tasks `done`), so the finished/unfinished
    /// lists are index range scans instead of JSON reads; listing indexes that also
    /// cover `search_text`, so a search scans an index in sort order instead of looking
    /// up every row (≈ 8× faster at 100,000 records); and `sync_state.next_page` so an
    /// interrupted pull can resume mid-collection.
    ///
    /// Existing rows are backfilled from their JSON with the same code that fills the
    /// column on every write (`RecordIndexing`).
    static let v2CompletionAndPaging = Migration(version: 2, summary: "completion column, covering listing indexes, resumable paging") {
        connection throws(StorageError) in
        try connection.execute("""
            ALTER TABLE records ADD COLUMN complete INTEGER CHECK (complete IN (0, 1));
            DROP INDEX records_by_sort_key;
            CREATE INDEX records_listing ON records (collection, deleted, sort_key, id, search_text);
            CREATE INDEX records_listing_by_completion ON records (collection, deleted, complete, sort_key, id, search_text);
            ALTER TABLE sync_state ADD COLUMN next_page TEXT;
            """, operation: "migrate to v2")

        let rows = try connection.query(
            "SELECT rowid, collection, json FROM records WHERE collection IN ('books', 'tasks')",
            operation: "migrate to v2: read records"
        ) { row in (row.int64(0), row.text(1), row.blob(2)) }
        for (rowid, collectionName, json) in rows {
            guard let collection = CollectionName(rawValue: collectionName),
                  let fields = try? WireFields.parse(json)
            else { continue }  // NB: json_valid guarantees JSON; a non-object keeps NULL.
            let complete = RecordIndexing(collection: collection, fields: fields).complete
            try connection.run(
                "UPDATE records SET complete = ? WHERE rowid = ?",
                [.bool(complete), .integer(rowid)],
                operation: "migrate to v2: backfill completion"
            )
        }
    }
}

// MARK: - v3

extension Migration {
    /// One listing index instead of two, without the search text where it repeats the
    /// sort key.
    ///
    /// For books, tasks and products the search text *is* the sort key
    /// (`RecordIndexing.searchesSortKey`): v2 stored it twice in the row and twice in
    /// each of two indexes, so every write inserted ~165-byte entries into two indexes.
    /// Now those rows keep an empty `search_text`, searches of those collections read
    /// `sort_key`, and one index carries `complete` and `search_text` for the filters:
    /// a pulled page costs a quarter less, a first sync of 100,000 books half, and a
    /// search scans an index a third the size. Filters on `complete` scan the
    /// collection's entries in sort order instead of a range of their own, which is
    /// the same order of work as counting them was.
    static let v3OneListingIndex = Migration(version: 3, summary: "one listing index, no repeated search text") {
        connection throws(StorageError) in
        try connection.execute("""
            DROP INDEX IF EXISTS records_listing;
            DROP INDEX IF EXISTS records_listing_by_completion;
            UPDATE records SET search_text = '' WHERE collection IN ('books', 'tasks', 'products');
            CREATE INDEX records_listing ON records (collection, deleted, sort_key, id, complete, search_text);
            """, operation: "migrate to v3")
    }
}

// MARK: - v4

extension Migration {
    /// What a sync needs to converge when replies get lost and servers forget.
    ///
    /// - `outbox.sent_revision` / `outbox.sent_body`: an entry that has been sent is
    ///   *in flight* — the server may have applied it whatever happened to the reply.
    ///   The revision and the exact body sent are kept so the request can be repeated
    ///   as it was (an idempotent retry), and so the server's echo of it is recognised
    ///   as an acknowledgement rather than a remote change.
    /// - `sync_state.collection_timestamp`: the server's collection object's
    ///   `last_modified`; a new one means the collection was deleted and recreated.
    /// - `sync_state.recovering`: the server lost data; the next pulls start from
    ///   scratch and re-upload what it no longer has, until one completes.
    ///   `cursor_before_recovery` is how far this store had synced when it noticed: a
    ///   record the server still has from before then, and this store does not, was
    ///   deleted here since.
    /// - `sync_state.pushed_timestamp`: the highest `last_modified` the server gave this
    ///   store's own pushes. The cursor only follows pulls; a server whose records'
    ///   timestamp is behind either has gone back in time.
    static let v4InFlightAndServerIdentity = Migration(version: 4, summary: "in-flight outbox entries, server identity") {
        connection throws(StorageError) in
        try connection.execute("""
            ALTER TABLE outbox ADD COLUMN sent_revision INTEGER;
            ALTER TABLE outbox ADD COLUMN sent_body BLOB;
            ALTER TABLE sync_state ADD COLUMN collection_timestamp INTEGER;
            ALTER TABLE sync_state ADD COLUMN recovering INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE sync_state ADD COLUMN cursor_before_recovery INTEGER;
            ALTER TABLE sync_state ADD COLUMN pushed_timestamp INTEGER;
            """, operation: "migrate to v4")
    }
}

// MARK: - v5

extension Migration {
    /// `outbox.sent_lineage_id`: the revision id of a `create` or `update` in flight
    /// (`RecordLineage`), made when the entry is first sent and carried in its body, so
    /// a repeat sends the same id and a record that descends from the write is known
    /// by it. Entries sent by an older build have none and merge as they did.
    static let v5WriteLineage = Migration(version: 5, summary: "revision ids of writes in flight") {
        connection throws(StorageError) in
        try connection.execute("""
            ALTER TABLE outbox ADD COLUMN sent_lineage_id TEXT;
            """, operation: "migrate to v5")
    }
}

// MARK: - v6

extension Migration {
    /// `acknowledged_deletions`: records whose deletion the server acknowledged, with
    /// the last lineage revision id of the version deleted (`AcknowledgedDeletions`), so
    /// a stale copy of that very version uploaded again later is deleted again instead
    /// of coming back.
    static let v6AcknowledgedDeletions = Migration(version: 6, summary: "acknowledged deletions") {
        connection throws(StorageError) in
        try connection.execute("""
            CREATE TABLE acknowledged_deletions (
                collection TEXT NOT NULL,
                id TEXT NOT NULL,
                revision TEXT NOT NULL,
                deleted_at INTEGER NOT NULL,
                PRIMARY KEY (collection, id)
            ) WITHOUT ROWID;
            CREATE INDEX acknowledged_deletions_age ON acknowledged_deletions (deleted_at);
            """, operation: "migrate to v6")
    }
}

// MARK: - v7

extension Migration {
    /// `records.json` without its `CHECK (json_valid(json))`.
    ///
    /// Every write of that column already validates the whole object with the byte
    /// scanner: a pulled page is scanned before it is applied, and every other write
    /// reads the record's indexed members through `WireFields`, which refuses nested
    /// garbage too. The check parsed each record a second time inside SQLite, about a
    /// fifth of the instructions of storing a pulled page (a 10,000-record page:
    /// 119 M instructions of ~540 M, callgrind). Damage that bypasses Shelf (another
    /// tool, a bad disk) is still found: `IntegrityCheck` looks for rows whose JSON is
    /// not valid, as SQLite's check of the constraint did.
    ///
    /// SQLite cannot drop a constraint with `ALTER TABLE`; a CHECK that goes away does
    /// not change how rows are stored, so the table's text is edited in place
    /// (sqlite.org/lang_altertable.html, "Making Other Kinds Of Table Schema Changes")
    /// and the schema cookie bumped so every connection reads it again.
    static let v7RecordsWithoutJSONCheck = Migration(version: 7, summary: "records without the json_valid check") {
        connection throws(StorageError) in
        let cookie = try connection.queryFirst("PRAGMA schema_version", operation: "migrate to v7: read the schema cookie") {
            $0.int64(0)
        } ?? 0
        // NB: PRAGMA takes no bound parameters; the cookie is SQLite's own integer.
        try connection.execute("""
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = replace(sql, ' CHECK (json_valid(json))', '')
                WHERE type = 'table' AND name = 'records';
            PRAGMA schema_version = \(cookie &+ 1);
            PRAGMA writable_schema = OFF;
            """, operation: "migrate to v7")
        let left = try connection.queryFirst(
            "SELECT instr(sql, 'json_valid') FROM sqlite_master WHERE type = 'table' AND name = 'records'",
            operation: "migrate to v7: check the records table"
        ) { $0.int(0) } ?? 0
        guard left == 0 else {
            throw .corruptValue(what: "the records table's definition", reason: "its json_valid check could not be removed")
        }
    }
}

// MARK: - v8

extension Migration {
    /// The records' uniqueness as a named index (`records_by_id`) instead of the table's
    /// `UNIQUE (collection, id)` constraint, so that a bulk load can leave it out and
    /// build it once at the end (`IdentityIndex`); SQLite cannot drop a constraint's index.
    ///
    /// The constraint's automatic index and a `CREATE UNIQUE INDEX` on the same columns
    /// are the same b-tree, byte for byte: only the schema's text changes. As for v7,
    /// that text is edited in place (sqlite.org/lang_altertable.html, "Making Other Kinds
    /// Of Table Schema Changes"): the constraint leaves the table's definition, and its
    /// index's row in the schema gets the name and definition of a unique index. The
    /// schema cookie is bumped so every connection reads it again. Upserts name the
    /// columns (`ON CONFLICT (collection, id)`), which a unique index serves as the
    /// constraint did.
    static let v8DroppableIdentityIndex = Migration(version: 8, summary: "the records' id index, droppable") {
        connection throws(StorageError) in
        let table = try connection.queryFirst(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'records'",
            operation: "migrate to v8: read the records table"
        ) { $0.text(0) } ?? ""
        guard let withoutConstraint = Self.removingUniqueConstraint(from: table) else {
            throw .corruptValue(what: "the records table's definition", reason: "it has no UNIQUE (collection, id) to turn into an index")
        }
        let automatic = try connection.queryFirst(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'sqlite_autoindex_records_1' AND sql IS NULL",
            operation: "migrate to v8: find the constraint's index"
        ) { $0.int(0) } ?? 0
        guard automatic == 1 else {
            throw .corruptValue(what: "the records table's indexes", reason: "the index of its UNIQUE (collection, id) is missing")
        }
        let cookie = try connection.queryFirst("PRAGMA schema_version", operation: "migrate to v8: read the schema cookie") {
            $0.int64(0)
        } ?? 0
        try connection.execute("PRAGMA writable_schema = ON", operation: "migrate to v8: open the schema")
        do throws(StorageError) {
            try connection.run(
                "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'records'", [.text(withoutConstraint)],
                operation: "migrate to v8: rewrite the records table")
            try connection.run(
                "UPDATE sqlite_master SET name = ?, sql = ? WHERE type = 'index' AND name = 'sqlite_autoindex_records_1'",
                [.text(IdentityIndex.name), .text("CREATE UNIQUE INDEX records_by_id ON records (collection, id)")],
                operation: "migrate to v8: name the id index")
            // NB: PRAGMA takes no bound parameters; the cookie is SQLite's own integer.
            try connection.execute("PRAGMA schema_version = \(cookie &+ 1)", operation: "migrate to v8: bump the schema cookie")
        } catch {
            try? connection.execute("PRAGMA writable_schema = OFF", operation: "migrate to v8: close the schema")
            throw error
        }
        try connection.execute("PRAGMA writable_schema = OFF", operation: "migrate to v8: close the schema")
        // The schema is read again here: a statement that must use the renamed index
        // fails unless SQLite takes it for a unique index on exactly those columns.
        _ = try connection.queryFirst(
            "SELECT 1 FROM records INDEXED BY records_by_id WHERE collection = '' AND id = ''",
            operation: "migrate to v8: use the id index") { $0.int(0) }
    }

    /// The records table's definition without `, UNIQUE (collection, id)`; nil when it
    /// has no such constraint.
    static func removingUniqueConstraint(from table: String) -> String? {
        guard let constraint = table.range(of: "UNIQUE (collection, id)") else { return nil }
        var start = constraint.lowerBound
        // Back over the whitespace to the comma that separates the constraint.
        while start > table.startIndex {
            let previous = table.index(before: start)
            if table[previous].isWhitespace {
                start = previous
            } else if table[previous] == "," {
                start = previous
                break
            } else {
                return nil
            }
        }
        guard start < constraint.lowerBound, table[start] == "," else { return nil }
        return String(table[..<start] + table[constraint.upperBound...])
    }
}

// MARK: - v9

extension Migration {
    /// What a pull needs to converge on a Kinto that commits concurrent writes out of
    /// timestamp order (`CommitWindow`, `Reconciliation` in Sync):
    /// - `sync_state.settled`: every record the server stamped at or before it is in
    ///   this store (within the commit window's guarantee); the next pull asks `_since` it.
    /// - `sync_state.server_clock` and `server_clock_at`: a lower bound of the server's
    ///   clock (a collection timestamp the server reported) and when, by this machine's
    ///   clock, it was seen — so a run can tell that the window has passed.
    /// - `sync_state.last_reconciled`: when the collection's ids and timestamps were last
    ///   compared with the server's whole list.
    /// - `outbox.server_tombstone`: the stamp of the server's deletion a waiting create
    ///   puts the record back over (a local edit kept against a remote deletion), so a
    ///   pull that reaches back over that tombstone knows it.
    /// - `acknowledged_writes`: updates the server acknowledged, with the version each was
    ///   based on, so that one another device's concurrent write replaced unseen is
    ///   queued again (`AcknowledgedWrite`).
    /// Stores from before have none: their next pull reaches back one window behind the
    /// cursor, and their next run reconciles (a collection that has a cursor is marked
    /// as last reconciled at 1970, so it is due), which finds what they already missed.
    static let v9CommitWindow = Migration(version: 9, summary: "settled cursor, server clock, reconciliation") {
        connection throws(StorageError) in
        try connection.execute("""
            ALTER TABLE sync_state ADD COLUMN settled INTEGER;
            ALTER TABLE sync_state ADD COLUMN server_clock INTEGER;
            ALTER TABLE sync_state ADD COLUMN server_clock_at INTEGER;
            ALTER TABLE sync_state ADD COLUMN last_reconciled INTEGER;
            UPDATE sync_state SET last_reconciled = 0 WHERE cursor IS NOT NULL;
            ALTER TABLE outbox ADD COLUMN server_tombstone INTEGER;
            CREATE TABLE acknowledged_writes (
                collection TEXT NOT NULL,
                id TEXT NOT NULL,
                revision TEXT NOT NULL,
                parent TEXT,
                base BLOB NOT NULL,
                base_last_modified INTEGER NOT NULL,
                written BLOB NOT NULL,
                written_last_modified INTEGER NOT NULL,
                acknowledged_at INTEGER NOT NULL,
                PRIMARY KEY (collection, id)
            ) WITHOUT ROWID;
            CREATE INDEX acknowledged_writes_age ON acknowledged_writes (acknowledged_at);
            """, operation: "migrate to v9")
    }
}


// MARK: - v10

extension Migration {
    /// An index for each order of a library that is not the sort key's own, so a listing
    /// by author or by completion walks an index instead of sorting every record (≈ 100 ms
    /// at 100,000 books), and a window deep in such a list can be found by seeking to the
    /// book before it (`RecordQuery.anchor`) rather than stepping through every row above.
    ///
    /// - `records.sort_key_from_second_field`: the folded sort key from its second field
    ///   on (books: the author, then nothing else — the title follows in `sort_key`), as
    ///   `RecordOrder.Key.sortKeyFromSecondField` sorts. A whole key without a separator
    ///   is its own tail, as `instr` = 0 made it before.
    /// - `records.completion_order`: `complete`, with -1 where a record has none, so the
    ///   completion order has no NULLs (NULL sorted first before, and so does -1) and a
    ///   seek can compare it as a row value.
    ///
    /// Both are VIRTUAL generated columns: no write computes them, no row grows, and no
    /// backfill is needed; only their indexes store them, and a store migrated from any
    /// version gets exactly what a new one does. Each index ends with what the filters
    /// read (`complete`, the sort key the books' search reads), so a filtered walk never
    /// looks up a row it leaves out.
    ///
    /// NB: `char(31)` is `SearchText.fieldSeparator` (a test holds them equal); a new
    /// separator needs a new migration.
    static let v10OrderIndexes = Migration(version: 10, summary: "indexes for the author and completion orders") {
        connection throws(StorageError) in
        try connection.execute("""
            ALTER TABLE records ADD COLUMN sort_key_from_second_field TEXT
                GENERATED ALWAYS AS (substr(sort_key, instr(sort_key, char(31)) + 1)) VIRTUAL;
            ALTER TABLE records ADD COLUMN completion_order INTEGER
                GENERATED ALWAYS AS (coalesce(complete, -1)) VIRTUAL;
            CREATE INDEX records_by_second_field
                ON records (collection, deleted, sort_key_from_second_field, sort_key, id, complete);
            CREATE INDEX records_by_completion
                ON records (collection, deleted, completion_order, sort_key, id);
            """, operation: "migrate to v10")
    }
}

// MARK: - v11

extension Migration {
    /// What an encrypted account's device remembers so that a server cannot roll back or
    /// erase what it has seen (Modules/Sync/Encryption, docs/encryption.md "What a hostile
    /// server cannot do"):
    /// - `sealed_deletions`: every record this device saw removed by a sealed deletion (its
    ///   own or another device's), with the deletion's sequence number, lineage revision
    ///   and stamp. A version of the record no newer than the deletion is an old one put
    ///   back. Kept for good: about 60 bytes a removed record.
    /// - `server_deletions`: records the server deleted without the reader (a tombstone
    ///   over a record whose newest sealed version is live), kept here and listed until
    ///   `shelf encryption put-back` uploads them again or a sealed version settles them.
    static let v11IntegrityMemory = Migration(version: 11, summary: "sealed deletions, deletions the server made alone") {
        connection throws(StorageError) in
        try connection.execute("""
            CREATE TABLE sealed_deletions (
                collection    TEXT    NOT NULL,
                id            TEXT    NOT NULL,
                seq           INTEGER NOT NULL,
                revision      TEXT,
                last_modified INTEGER NOT NULL,
                PRIMARY KEY (collection, id)
            ) WITHOUT ROWID;
            CREATE TABLE server_deletions (
                collection    TEXT    NOT NULL,
                id            TEXT    NOT NULL,
                last_modified INTEGER NOT NULL,
                noticed_at    INTEGER NOT NULL,
                PRIMARY KEY (collection, id)
            ) WITHOUT ROWID;
            """, operation: "migrate to v11")
    }
}

// MARK: - v12

extension Migration {
    /// The history of the reader's operations, which `shelf undo`, `redo`, `history` and
    /// `pending` walk (`OperationHistory` in Sync). One row of `operations` per local
    /// write (a command, a key in `shelf ui`, an import), written in the transaction of
    /// the write it describes (`ShelfStore.edit`), so a kill leaves both or neither:
    /// - `origin`: what made it (`book edit`, `ui`); `made_at` in ms;
    /// - `state`: `done`, or `undone` (what `redo` puts back; a new operation drops them);
    /// - `reverts`: the operation a selective `undo` took back, when this one did;
    /// - `complete`: 0 when the operation was too large to keep its records (listed, never
    ///   undone); `records` and `bytes` say how large it was, `tally` what it did per
    ///   collection (`{"books": [added, changed, removed]}`).
    /// `operation_changes` holds each record's version before and after (NULL: no record),
    /// and the outbox entry the change went into (`outbox_seq`: it is not synced while that
    /// entry is there). The history is bounded (`OperationHistoryLimits`); nothing before
    /// this version is in it: a store migrated with changes waiting lists them outside it.
    static let v12OperationHistory = Migration(version: 12, summary: "the history of the reader's operations") {
        connection throws(StorageError) in
        try connection.execute("""
            CREATE TABLE operations (
                seq      INTEGER PRIMARY KEY AUTOINCREMENT,
                made_at  INTEGER NOT NULL,
                origin   TEXT    NOT NULL,
                state    TEXT    NOT NULL CHECK (state IN ('done', 'undone')),
                reverts  INTEGER,
                complete INTEGER NOT NULL CHECK (complete IN (0, 1)),
                records  INTEGER NOT NULL,
                bytes    INTEGER NOT NULL,
                tally    TEXT    NOT NULL
            );
            CREATE TABLE operation_changes (
                operation  INTEGER NOT NULL REFERENCES operations (seq) ON DELETE CASCADE,
                position   INTEGER NOT NULL,
                collection TEXT    NOT NULL,
                record_id  TEXT    NOT NULL,
                before     BLOB,
                after      BLOB,
                outbox_seq INTEGER,
                PRIMARY KEY (operation, position)
            ) WITHOUT ROWID;
            CREATE INDEX operation_changes_by_record ON operation_changes (collection, record_id, operation);
            """, operation: "migrate to v12")
    }
}

// MARK: - v13

extension Migration {
    /// Where a reconciliation by stamp ranges is (Sync's `Reconciliation`):
    /// - `sync_state.reconciled_through`: the cursor the last complete reconciliation (or a
    ///   first pull) compared the collection up to; the next one lists whole only what was
    ///   stamped since, one margin behind it, and compares counts of ranges before that.
    /// - `sync_state.reconciling_from`: a reconciliation under way has compared every stamp
    ///   up to this one; a run cut short continues from it. Nil when none is under way.
    /// - `sync_state.swept_through`: how far the slow sweep, which lists one slice of the
    ///   older records whole per reconciliation, has come; it starts again from 0 past the end.
    /// Stores from before have no `reconciled_through`: their next reconciliation lists the
    /// whole collection, as every reconciliation did before.
    ///
    /// NB: no index. The one on `(collection, last_modified)` that range counts read is built by
    /// the first reconciliation that needs it (`StampIndex`), never by a first sync.
    static let v13RangeReconciliation = Migration(version: 13, summary: "reconciliation by stamp ranges") {
        connection throws(StorageError) in
        try connection.execute("""
            ALTER TABLE sync_state ADD COLUMN reconciled_through INTEGER;
            ALTER TABLE sync_state ADD COLUMN reconciling_from INTEGER;
            ALTER TABLE sync_state ADD COLUMN swept_through INTEGER;
            """, operation: "migrate to v13")
    }
}
