import Domain

// MARK: - Reading acknowledged writes

extension StoreReader {
    /// The acknowledged write remembered for a record, nil when none.
    public func acknowledgedWrite(_ collection: CollectionName, id: String) throws(StorageError) -> AcknowledgedWrite? {
        try db.queryFirst(
            """
            SELECT revision, parent, base, base_last_modified, written, written_last_modified
            FROM acknowledged_writes WHERE collection = ? AND id = ?
            """,
            [.text(collection.rawValue), .text(id)], operation: "look up an acknowledged write"
        ) { row in
            AcknowledgedWrite(
                collection: collection, recordID: id, revision: row.text(0), parent: row.optionalText(1), base: row.blob(2),
                baseLastModified: row.int64(3), written: row.blob(4), writtenLastModified: row.int64(5))
        }
    }

    /// Whether any write of `collection` is remembered: one look per pulled page, so a
    /// page needs no look-up per record when none is.
    public func hasAcknowledgedWrites(in collection: CollectionName) throws(StorageError) -> Bool {
        try db.queryFirst(
            "SELECT 1 FROM acknowledged_writes WHERE collection = ? LIMIT 1",
            [.text(collection.rawValue)], operation: "look for acknowledged writes"
        ) { _ in true } ?? false
    }
}
