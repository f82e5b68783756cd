import Domain
import Foundation
import Records
import Storage

// MARK: - Deletions the server acknowledged

/// See `AcknowledgedDeletions`: a device that deleted a record remembers the version it
/// deleted, so that a stale copy another device uploads again is deleted again instead
/// of coming back.
extension SyncRules {
    /// Remembers that the server acknowledged deleting `id`, whose last version is
    /// `json` (the base snapshot, else the row); nothing when that version carries no
    /// lineage (another client wrote it): there is no revision to recognise it by.
    func rememberDeletion(_ collection: CollectionName, id: String, lastVersion json: Data?) throws(StorageError) {
        guard let revision = RecordLineage.ids(in: json).last else { return }
        try tx.writeAcknowledgedDeletion(collection, id: id, revision: revision)
    }

    /// When a pulled live record is exactly the version whose deletion the server
    /// acknowledged (its lineage ends with the remembered revision id), it is a stale
    /// upload: it is kept as a hidden row and its deletion queued again, against the
    /// server's new timestamp.
    /// - Returns: whether the deletion was queued (the pulled record is then not applied).
    func deleteAgainIfStale(_ remote: RawRecord, in collection: CollectionName) throws(StorageError) -> Bool {
        guard !remote.isDeleted, let revision = try tx.acknowledgedDeletionRevision(collection, id: remote.id),
              RecordLineage.ids(in: remote.json).last == revision,
              try tx.record(collection, id: remote.id, includingDeleted: true) == nil
        else { return false }
        try queueDeletion(of: remote, in: collection)
        return true
    }
}
