// MARK: - IdentityIndex

/// The unique index on `records (collection, id)` (v8), which a first pull of a large
/// collection leaves out while it loads (`BulkLoad`) and builds once with its last page.
///
/// Kinto's ids are random, so every pulled record lands at a random place in this
/// index. Once it outgrows the page cache (a few hundred thousand records), each pulled
/// page rewrites about half of its pages into the WAL and the checkpoint writes them
/// again. Sorting all the ids once at the end writes each page once: a million-record
/// first sync went from 12.5 to 5.4 s of CPU (`make bench-scale`).
///
/// It is also the uniqueness of a record and the parent key of the outbox's foreign
/// key, so it is never missing while anything else writes: every write transaction
/// except a bulk load's builds it first (`ShelfStore.write`), and a store opened
/// without it (a bulk load was killed) gets it back at once. A bulk load inserts each
/// id at most once (`BulkLoad` remembers them), into a collection that held none, so
/// building it never finds two rows with one id.
enum IdentityIndex {
    static let name = "records_by_id"

    /// NB: the same definition as the v8 migration's.
    static let definition = "CREATE UNIQUE INDEX IF NOT EXISTS records_by_id ON records (collection, id)"

    /// Whether the index exists (one look at the schema).
    static func isPresent(_ connection: SQLiteConnection) throws(StorageError) -> Bool {
        try connection.indexExists(name)
    }

    /// Drops it, inside the caller's transaction.
    static func drop(_ connection: SQLiteConnection) throws(StorageError) {
        try connection.execute("DROP INDEX IF EXISTS records_by_id", operation: "drop the records' id index")
    }

    /// Builds it when it is missing, inside the caller's transaction.
    static func create(_ connection: SQLiteConnection) throws(StorageError) {
        try connection.execute(definition, operation: "build the records' id index")
    }

    /// `create`, after one look at the schema: the cached look is all an ordinary write
    /// transaction pays when the index is there, as it nearly always is.
    static func createIfMissing(_ connection: SQLiteConnection) throws(StorageError) {
        if try !isPresent(connection) { try create(connection) }
    }

    /// Builds it and the listing indexes, in a transaction of their own, when a killed
    /// bulk load left them out; nothing to do (two looks at the schema) when they are there.
    static func restoreBulkLoadIndexes(_ connection: SQLiteConnection) throws(StorageError) {
        let identity = try isPresent(connection)
        let listing = try ListingIndexes.arePresent(connection)
        guard !identity || !listing else { return }
        try connection.execute("BEGIN IMMEDIATE", operation: "begin rebuilding the records' indexes")
        do throws(StorageError) {
            try create(connection)
            try ListingIndexes.create(connection)
            try connection.execute("COMMIT", operation: "commit the records' indexes")
        } catch {
            try? connection.execute("ROLLBACK", operation: "roll back the records' indexes")
            throw error
        }
    }
}

// MARK: - One look at the schema

extension SQLiteConnection {
    /// Whether an index of that name exists.
    func indexExists(_ name: String) throws(StorageError) -> Bool {
        try queryFirst(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?)", [.text(name)],
            operation: "look for the index \(name)"
        ) { $0.bool(0) } ?? false
    }
}
