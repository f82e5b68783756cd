import Domain

// MARK: - Every row of a collection

extension StoreReader {
    /// Every row of `collection`, hidden deletions included, in no particular order: what
    /// the end of a recovery compares with what the server still has.
    public func rows(of collection: CollectionName) throws(StorageError) -> [StoredRecord] {
        try db.query(
            "SELECT id, deleted, json, last_modified FROM records WHERE collection = ?", [.text(collection.rawValue)],
            operation: "list local \(collection.rawValue) records"
        ) { row in
            StoredRecord(collection: collection, id: row.text(0), json: row.blob(2), lastModified: row.optionalInt64(3), isDeleted: row.bool(1))
        }
    }
}
