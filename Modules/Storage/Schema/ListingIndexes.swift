// MARK: - ListingIndexes

/// The listing indexes (v3's, v10's), which a bulk pull may leave out while it loads
/// (`StoreTransaction.storePulled(_:in:morePagesFollow:mayLoadInBulk:)`).
///
/// They only make listings and searches fast; no query's result depends on them, and no
/// constraint lives in them. Inserting 100,000 records at random places in them costs
/// more than building them once the records are in, because every pulled page then
/// rewrites most of their pages. A store opened without them (a bulk pull was killed)
/// gets them back at once.
enum ListingIndexes {
    /// NB: the same definitions as the migrations' (`v3OneListingIndex`,
    /// `v10OrderIndexes`): a store never has two shapes of them. A later migration that
    /// changes them changes these too.
    static let definitions: [(name: String, sql: String)] = [
        ("records_listing",
         "CREATE INDEX IF NOT EXISTS records_listing ON records (collection, deleted, sort_key, id, complete, search_text)"),
        ("records_by_second_field",
         "CREATE INDEX IF NOT EXISTS records_by_second_field ON records (collection, deleted, sort_key_from_second_field, sort_key, id, complete)"),
        ("records_by_completion",
         "CREATE INDEX IF NOT EXISTS records_by_completion ON records (collection, deleted, completion_order, sort_key, id)"),
    ]

    /// Whether every listing index exists.
    static func arePresent(_ connection: SQLiteConnection) throws(StorageError) -> Bool {
        let found = try connection.queryFirst(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN (SELECT value FROM json_each(?))",
            [.text(StoreReader.jsonArray(definitions.map(\.name)))],
            operation: "look for the listing indexes"
        ) { $0.int(0) } ?? 0
        return found == definitions.count
    }

    /// Drops them, inside the caller's transaction.
    static func drop(_ connection: SQLiteConnection) throws(StorageError) {
        for (name, _) in definitions {
            try connection.execute("DROP INDEX IF EXISTS \(name)", operation: "drop listing index \(name)")
        }
    }

    /// Builds those that are missing, inside the caller's transaction.
    static func create(_ connection: SQLiteConnection) throws(StorageError) {
        for (name, sql) in definitions {
            try connection.execute(sql, operation: "build listing index \(name)")
        }
    }
}
