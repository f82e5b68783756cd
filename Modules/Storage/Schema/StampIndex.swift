// MARK: - StampIndex

/// The index on `records (collection, last_modified)` that a reconciliation by stamp
/// ranges reads: how many records a range holds, where to split it, which ids it holds.
///
/// It is built by the first reconciliation that needs it (`StoreTransaction.prepareStampRanges`),
/// never by a migration or a first sync: a first pull counts as a reconciliation, so
/// the next one is a day later, and the reader does not wait for this index while the
/// library comes in — every index costs the first sync of a large library its build.
/// Once it is there, every write keeps it: a pulled page goes in `last_modified` order,
/// so its entries are appended at the end of the collection's range, a few pages at most.
///
/// Nothing depends on it but speed: without it, the same queries step through the
/// collection's rows.
enum StampIndex {
    static let name = "records_by_stamp"

    static let definition = "CREATE INDEX IF NOT EXISTS records_by_stamp ON records (collection, last_modified)"

    /// Whether the index exists (one look at the schema).
    static func isPresent(_ connection: SQLiteConnection) throws(StorageError) -> Bool {
        try connection.indexExists(name)
    }
}

// MARK: - Building it

extension StoreTransaction {
    /// Builds the stamp index when it is missing, inside this transaction; one look at
    /// the schema when it is there.
    /// - Returns: whether it was built now.
    @discardableResult
    public func prepareStampRanges() throws(StorageError) -> Bool {
        guard try !StampIndex.isPresent(db) else { return false }
        try db.execute(StampIndex.definition, operation: "build the records' stamp index")
        return true
    }
}
