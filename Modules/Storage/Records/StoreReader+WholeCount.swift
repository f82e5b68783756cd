import Domain
import Records

// MARK: - Counting a whole collection

extension StoreReader {
    /// Up to this many records in the other collections, a whole collection is counted
    /// as all records less theirs; past it, by its own range of the index.
    static let otherRecordsLimit = 10_000

    /// How many live records `collection` holds.
    ///
    /// SQLite counts a whole table from its smallest index's pages, each of which knows
    /// how many entries it holds, without stepping through them (its `OP_Count`): at
    /// 100,000 books, 0.3 ms where stepping through the collection's range of the
    /// `(collection, id)` index takes 2.8 ms. So the collection is counted as every
    /// record of the store, less those of the other collections — stepped through, while
    /// they are fewer than `otherRecordsLimit` — and less its own rows waiting for a
    /// pushed deletion. A store whose other collections hold more (a large shop
    /// catalog) counts the collection's range instead, as before: at most ~0.3 ms lost.
    /// All three counts see the same snapshot (one read transaction).
    /// - Parameter limit: `otherRecordsLimit` (tests lower it).
    func wholeCount(_ collection: CollectionName, otherRecordsLimit limit: Int = otherRecordsLimit) throws(StorageError) -> Int {
        let name = SQLiteValue.text(collection.rawValue)
        let operation = "count \(collection.rawValue)"
        let others = try db.queryFirst(Self.otherRecordsSQL, [name, .integer(Int64(limit))], operation: operation) { $0.int(0) } ?? 0
        guard others < limit else {
            return try db.queryFirst(Self.rangeCountSQL, [name], operation: operation) { $0.int(0) } ?? 0
        }
        let all = try db.queryFirst(Self.allRecordsSQL, operation: operation) { $0.int(0) } ?? 0
        let deleted = try db.queryFirst(Self.deletedCountSQL, [name], operation: operation) { $0.int(0) } ?? 0
        return all - others - deleted
    }

    /// The records of every other collection, up to the limit (`?2`).
    static let otherRecordsSQL = """
        SELECT count(*) FROM (
            SELECT 1 FROM records WHERE collection < ?1 UNION ALL SELECT 1 FROM records WHERE collection > ?1 LIMIT ?2)
        """
    static let allRecordsSQL = "SELECT count(*) FROM records"
    static let deletedCountSQL = "SELECT count(*) FROM records WHERE collection = ? AND deleted = 1"
    /// The collection's live records, stepped through on its range of the narrowest
    /// index, `(collection, id)`: half the time the listing index takes.
    static let rangeCountSQL = """
        SELECT (SELECT count(*) FROM records WHERE collection = ?1)
             - (SELECT count(*) FROM records WHERE collection = ?1 AND deleted = 1)
        """

    /// SQLite's plans for `wholeCount`, one line per step of each statement — to check
    /// that every count reads an index, never the table's rows.
    func wholeCountPlans() throws(StorageError) -> [String] {
        let name = SQLiteValue.text("books")
        var plans: [String] = []
        for (sql, parameters) in [(Self.otherRecordsSQL, [name, .integer(10)]), (Self.allRecordsSQL, []),
                                  (Self.deletedCountSQL, [name]), (Self.rangeCountSQL, [name])] {
            plans += try db.query("EXPLAIN QUERY PLAN " + sql, parameters, operation: "explain") { $0.text(3) }
        }
        return plans
    }
}
