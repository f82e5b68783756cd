// MARK: - Data version

extension ShelfStore {
    /// SQLite's `PRAGMA data_version` on this store's connection: a number that changes
    /// whenever another connection (a `shelf-sync` run from cron, `shelf` in another
    /// terminal) commits to the database file, and never for this connection's own writes.
    /// A live screen polls it to know, without reading any table, that what it shows may
    /// be stale.
    /// - Throws: `StorageError` when the connection cannot answer.
    public func dataVersion() throws(StorageError) -> Int64 {
        try withConnection { (connection) throws(StorageError) -> Int64 in
            try connection.queryFirst("PRAGMA data_version", operation: "read the data version") { row in
                row.int64(0)
            } ?? 0
        }
    }
}
