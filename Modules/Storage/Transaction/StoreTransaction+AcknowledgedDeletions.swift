import Domain
import Foundation
import Records

// MARK: - Remembering acknowledged deletions

/// See `AcknowledgedDeletions`.
extension StoreTransaction {
    /// Whether any deletion of `collection` is remembered: one look per pulled page, so
    /// a page needs no look-up per record when none is (every first sync, most pulls).
    func hasAcknowledgedDeletions(in collection: CollectionName) throws(StorageError) -> Bool {
        try db.queryFirst(
            "SELECT 1 FROM acknowledged_deletions WHERE collection = ? LIMIT 1",
            [.text(collection.rawValue)], operation: "look for acknowledged deletions"
        ) { _ in true } ?? false
    }

    // MARK: Remembering

    /// Remembers that the server acknowledged deleting `id`, whose last version is
    /// `json` (the base snapshot, else the row); nothing when that version carries no
    /// lineage (another client wrote it): there is no revision to recognise it by.
    func rememberDeletion(_ collection: CollectionName, id: String, lastVersion json: Data?) throws(StorageError) {
        guard let revision = RecordLineage.ids(in: json).last else { return }
        let now = clock()
        try db.run(
            "INSERT OR REPLACE INTO acknowledged_deletions (collection, id, revision, deleted_at) VALUES (?, ?, ?, ?)",
            [.text(collection.rawValue), .text(id), .text(revision), .date(now)],
            operation: "remember the deletion of \(collection.rawValue) record '\(id)'"
        )
        try prune(
            .acknowledgedDeletions, now: now, maximumAge: AcknowledgedDeletions.maximumAge,
            maximumCount: AcknowledgedDeletions.maximumCount)
    }

    /// Forgets a collection's acknowledged deletions: the server forgot the collection,
    /// and what it is filled with again is judged by the recovery, not by them.
    func forgetAcknowledgedDeletions(_ collection: CollectionName) throws(StorageError) {
        try db.run(
            "DELETE FROM acknowledged_deletions WHERE collection = ?", [.text(collection.rawValue)],
            operation: "forget acknowledged \(collection.rawValue) deletions"
        )
    }

    // MARK: Recognising a stale copy

    /// When a pulled live record is exactly the version whose deletion the server
    /// acknowledged (its lineage ends with the remembered revision id), it is a stale
    /// upload: it is kept as a hidden row and its deletion queued again, against the
    /// server's new timestamp.
    /// - Returns: whether the deletion was queued (the pulled record is then not applied).
    func deleteAgainIfStale(_ remote: RawRecord, in collection: CollectionName) throws(StorageError) -> Bool {
        guard !remote.isDeleted, let revision = try acknowledgedDeletionRevision(collection, id: remote.id),
              RecordLineage.ids(in: remote.json).last == revision,
              try record(collection, id: remote.id, includingDeleted: true) == nil
        else { return false }
        let indexing = try indexing(collection, id: remote.id, json: remote.json, requireID: false)
        try writeRecord(
            collection, id: remote.id, json: remote.json, lastModified: remote.lastModified, deleted: true,
            indexing: indexing, operation: "queue again the deletion of a \(collection.rawValue) record"
        )
        try writeBase(BaseSnapshot(collection: collection, recordID: remote.id, json: remote.json, lastModified: remote.lastModified))
        _ = try writeOutbox(collection, id: remote.id, kind: .delete, base: remote.lastModified, waiting: nil)
        return true
    }
}
