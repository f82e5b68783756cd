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

    /// Whether any deletion of `collection` is remembered: one look per pulled page, so
    /// a page needs no look-up per record when none is (every first sync, most pulls).
    public func hasAcknowledgedDeletions(in collection: CollectionName) throws(StorageError) -> Bool {
        try db.queryFirst(
            "SELECT 1 FROM acknowledged_deletions WHERE collection = ? LIMIT 1",
            [.text(collection.rawValue)], operation: "look for acknowledged deletions"
        ) { _ in true } ?? false
    }
}
