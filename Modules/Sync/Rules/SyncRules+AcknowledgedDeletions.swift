import Domain
import Foundation
import Records
import Storage

// MARK: - Deletions the server acknowledged

/// See `AcknowledgedDeletions`: a device that deleted a record remembers the version it
/// deleted, so that a stale copy another device uploads again is deleted again instead
/// of coming back (`PulledRecordsPlan` tells such a copy; `queueDeletion` deletes it).
extension SyncRules {
    /// Remembers that the server acknowledged deleting `id`, whose last version is
    /// `json` (the base snapshot, else the row); nothing when that version carries no
    /// lineage (another client wrote it): there is no revision to recognise it by.
    func rememberDeletion(_ collection: CollectionName, id: String, lastVersion json: Data?) throws(StorageError) {
        guard let revision = RecordLineage.ids(in: json).last else { return }
        try tx.writeAcknowledgedDeletion(collection, id: id, revision: revision)
    }
}
