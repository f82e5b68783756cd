import Domain
import Foundation
import Records

// MARK: - Acknowledged writes, written

/// The table behind `AcknowledgedWrite`; which writes are remembered and when one is
/// queued again are the sync engine's rules (`SyncRules.rememberWrite`,
/// `SyncRules.reopen`).
extension StoreTransaction {
    /// Remembers a write the server acknowledged, keeping the memory bounded
    /// (`AcknowledgedWrite`).
    public func writeAcknowledgedWrite(_ write: AcknowledgedWrite) throws(StorageError) {
        let now = clock.now()
        try db.run(
            """
            INSERT OR REPLACE INTO acknowledged_writes
                (collection, id, revision, parent, base, base_last_modified, written, written_last_modified, acknowledged_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(write.collection.rawValue), .text(write.recordID), .text(write.revision), .text(write.parent),
                .blob(write.base), .integer(write.baseLastModified), .blob(write.written),
                .integer(write.writtenLastModified), .date(now),
            ],
            operation: "remember an acknowledged write of \(write.collection.rawValue) record '\(write.recordID)'")
        try prune(.acknowledgedWrites, now: now, maximumAge: AcknowledgedWrite.maximumAge, maximumCount: AcknowledgedWrite.maximumCount)
    }

    /// Forgets a record's acknowledged write.
    public func forgetWrite(_ collection: CollectionName, id: String) throws(StorageError) {
        try db.run(
            "DELETE FROM acknowledged_writes WHERE collection = ? AND id = ?", [.text(collection.rawValue), .text(id)],
            operation: "forget an acknowledged write")
    }
}
