import Domain

// MARK: - Reading acknowledged deletions

extension StoreReader {
    /// The revision id remembered for the acknowledged deletion of `id`, nil when none.
    public func acknowledgedDeletionRevision(_ collection: CollectionName, id: String) throws(StorageError) -> String? {
        try db.queryFirst(
            "SELECT revision FROM acknowledged_deletions WHERE collection = ? AND id = ?",
            [.text(collection.rawValue), .text(id)], operation: "look up an acknowledged deletion"
        ) { $0.text(0) }
    }
}
