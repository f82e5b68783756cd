// MARK: - ListingIndexes

/// The listing indexes, which a bulk pull leaves out while it loads
/// (`StoreTransaction.storePulled(_:in:morePagesFollow:mayLoadInBulk:)`): the listing index
/// (v3's, by the sort key: every list, search and count), and the order indexes (v10's, one
/// per order that is not the sort key's: by author, by completion).
///
/// They only make listings and searches fast; no query's result depends on them, and no
/// constraint lives in them. Inserting 100,000 records at random places in them costs
/// more than building them once the records are in, because every pulled page then
/// rewrites most of their pages.
///
/// The listing index is built again by the bulk pull's last page, and a store opened
/// without it (a bulk pull was killed) gets it back at once. The order indexes are built
/// by the next whole sync run instead (`StoreTransaction.buildOrderIndexes`): at 100,000
/// books they cost a first sync 0.6 s of its 1.65 s of CPU (two more sorts of every
/// record's keys and two more scans of the table), and a first sync is what the reader
/// waits for. Until then a listing by author or by completion sorts its matches, as it
/// did before v10.
enum ListingIndexes {
    /// NB: the same definitions as the migrations' (`v3OneListingIndex`,
    /// `v10OrderIndexes`): a store never has two shapes of them. A later migration that
    /// changes them changes these too.
    static let listing: [(name: String, sql: String)] = [
        ("records_listing",
         "CREATE INDEX IF NOT EXISTS records_listing ON records (collection, deleted, sort_key, id, complete, search_text)"),
    ]

    static let orders: [(name: String, sql: String)] = [
        ("records_by_second_field",
         "CREATE INDEX IF NOT EXISTS records_by_second_field ON records (collection, deleted, sort_key_from_second_field, sort_key, id, complete)"),
        ("records_by_completion",
         "CREATE INDEX IF NOT EXISTS records_by_completion ON records (collection, deleted, completion_order, sort_key, id)"),
    ]

    /// Whether the listing index exists.
    static func arePresent(_ connection: SQLiteConnection) throws(StorageError) -> Bool {
        try count(listing, connection) == listing.count
    }

    /// Whether both order indexes exist.
    static func ordersArePresent(_ connection: SQLiteConnection) throws(StorageError) -> Bool {
        try count(orders, connection) == orders.count
    }

    private static func count(_ indexes: [(name: String, sql: String)], _ connection: SQLiteConnection) throws(StorageError) -> Int {
        try connection.queryFirst(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN (SELECT value FROM json_each(?))",
            [.text(StoreReader.jsonArray(indexes.map(\.name)))],
            operation: "look for the listing indexes"
        ) { $0.int(0) } ?? 0
    }

    /// Drops all of them, inside the caller's transaction.
    static func drop(_ connection: SQLiteConnection) throws(StorageError) {
        for (name, _) in listing + orders {
            try connection.execute("DROP INDEX IF EXISTS \(name)", operation: "drop listing index \(name)")
        }
    }

    /// Builds the listing index when it is missing, inside the caller's transaction.
    static func create(_ connection: SQLiteConnection) throws(StorageError) {
        for (name, sql) in listing {
            try connection.execute(sql, operation: "build listing index \(name)")
        }
    }

    /// Builds the order indexes that are missing, inside the caller's transaction.
    static func createOrders(_ connection: SQLiteConnection) throws(StorageError) {
        for (name, sql) in orders {
            try connection.execute(sql, operation: "build order index \(name)")
        }
    }
}

// MARK: - Building the order indexes

extension StoreReader {
    /// Whether the order indexes are there; false after a bulk pull, until the next run builds them.
    public func hasOrderIndexes() throws(StorageError) -> Bool {
        try ListingIndexes.ordersArePresent(db)
    }
}

extension StoreTransaction {
    /// Builds the order indexes a bulk pull left out (`ListingIndexes`), inside this
    /// transaction; one look at the schema when they are there.
    /// - Returns: whether they were built now.
    @discardableResult
    public func buildOrderIndexes() throws(StorageError) -> Bool {
        guard try !ListingIndexes.ordersArePresent(db) else { return false }
        try ListingIndexes.createOrders(db)
        return true
    }
}
