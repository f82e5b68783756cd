import Domain
import Foundation
import Records

// MARK: - Acknowledged deletions, written

/// The table behind `AcknowledgedDeletions`; when a deletion is remembered and what a
/// remembered one means for a pulled record are the sync engine's rules
/// (`SyncRules.rememberDeletion`, `PulledRecordsPlan`).
extension StoreTransaction {
    /// Remembers that the server acknowledged deleting `id` in its version `revision`
    /// (the last lineage id), keeping the memory bounded (`AcknowledgedDeletions`).
    public func writeAcknowledgedDeletion(_ collection: CollectionName, id: String, revision: String) throws(StorageError) {
        let now = clock.now()
        try db.run(
            "INSERT OR REPLACE INTO acknowledged_deletions (collection, id, revision, deleted_at) VALUES (?, ?, ?, ?)",
            [.text(collection.rawValue), .text(id), .text(revision), .date(now)],
            operation: "remember the deletion of \(collection.rawValue) record '\(id)'"
        )
        try prune(
            .acknowledgedDeletions, now: now, maximumAge: AcknowledgedDeletions.maximumAge,
            maximumCount: AcknowledgedDeletions.maximumCount)
    }

    /// Forgets a collection's acknowledged deletions.
    public func forgetAcknowledgedDeletions(_ collection: CollectionName) throws(StorageError) {
        try db.run(
            "DELETE FROM acknowledged_deletions WHERE collection = ?", [.text(collection.rawValue)],
            operation: "forget acknowledged \(collection.rawValue) deletions"
        )
    }
}
