import Domain
import Foundation
import Records
import Storage

// MARK: - When the server forgets

/// What the store does when the sync engine finds that the server lost data it had
/// synced: its collection was deleted and recreated, or restored from an older backup
/// (`ServerForgetting`).
///
/// The engine pulls the collection again from scratch (`startRecovery`); records the
/// server still has come back as usual, a local version newer than the server's is
/// pushed again over it (`keepNewerLocalVersion`), and once the last page is in, local
/// records the server no longer has are queued as creates (`requeueRecordsMissing`) —
/// guarded with `If-None-Match: *`, so a record another device re-uploaded first is
/// merged, not overwritten. Waiting local edits are kept throughout.
extension SyncRules {
    /// Marks a collection as recovering: its next pulls start from scratch until one
    /// completes (a run killed halfway starts again), and the server's collection
    /// object is remembered by its new timestamp. Remembered deletions are forgotten:
    /// what the collection is filled with again is judged by the recovery, not by them.
    public func startRecovery(_ collection: CollectionName, collectionTimestamp: Int64?) throws(StorageError) {
        try tx.updateSyncState(collection) { state in
            // NB: a recovery noticed again before it completed keeps the first cursor.
            if !state.recovering { state.cursorBeforeRecovery = state.cursor }
            state.recovering = true
            state.pushedTimestamp = nil
            state.cursor = nil
            state.etag = nil
            state.nextPage = nil
            state.collectionTimestamp = collectionTimestamp
        }
        try tx.forgetAcknowledgedDeletions(collection)
    }

    /// When the store holds a newer version of a record than the one the server sent
    /// (the server went back to an older state), keeps the local version and queues it
    /// as an update of the server's. A recovery's page decides this in `RecoveryPagePlan`;
    /// a reconciliation asks record by record.
    /// - Returns: whether the local version was kept (the pulled one is then not applied).
    public func keepNewerLocalVersion(_ remote: RawRecord, in collection: CollectionName) throws(StorageError) -> Bool {
        let plan = try RecoveryPagePlan([remote], cursorBefore: nil, recoveryLookups(in: collection))
        guard !plan.keptNewerLocal.isEmpty else { return false }
        try queueNewerLocalVersion(over: remote, in: collection)
        return true
    }

    /// Queues the local version as an update of the server's older `remote`.
    func queueNewerLocalVersion(over remote: RawRecord, in collection: CollectionName) throws(StorageError) {
        try tx.writeBase(BaseSnapshot(collection: collection, recordID: remote.id, json: remote.json, lastModified: remote.lastModified))
        try tx.setLastModified(collection, id: remote.id, remote.lastModified)
        try tx.writeOutbox(collection, id: remote.id, kind: .update, base: remote.lastModified, waiting: nil)
    }

    /// Keeps `remote` as a hidden row and queues its deletion against its timestamp.
    func queueDeletion(of remote: RawRecord, in collection: CollectionName) throws(StorageError) {
        try tx.writeRecord(collection, id: remote.id, json: remote.json, lastModified: remote.lastModified, deleted: true)
        try tx.writeBase(BaseSnapshot(collection: collection, recordID: remote.id, json: remote.json, lastModified: remote.lastModified))
        try tx.writeOutbox(collection, id: remote.id, kind: .delete, base: remote.lastModified, waiting: nil)
    }

    /// At the end of a recovery pull: queues every local record the server no longer
    /// has as a create (keeping its content, any waiting edit, and the last version it
    /// had from the server as the base of a merge), drops waiting
    /// deletions of records the server no longer has, and ends the recovery.
    /// - Parameter present: the ids of every record the recovery pull brought.
    /// - Returns: how many records were queued to be uploaded again.
    @discardableResult
    public func requeueRecordsMissing(from collection: CollectionName, present: Set<String>) throws(StorageError) -> Int {
        var requeued = 0
        for row in try tx.rows(of: collection) where !present.contains(row.id) {
            if try requeue(row) { requeued += 1 }
        }
        try tx.updateSyncState(collection) { state in
            state.recovering = false
            state.cursorBeforeRecovery = nil
        }
        return requeued
    }

    /// Queues one local record the server no longer has (it forgot it, or deleted it
    /// without the reader: `putBack`). - Returns: whether it is uploaded again (a
    /// deletion is not counted).
    func requeue(_ row: StoredRecord) throws(StorageError) -> Bool {
        let (collection, id) = (row.collection, row.id)
        let waiting = try tx.outboxEntry(collection, id: id)
        if row.isDeleted {
            // Deleted here, gone there — but other devices still have it and upload it
            // again: the deletion must reach the server as a tombstone they will pull.
            if waiting?.isInFlight == true && waiting?.kind == .create { return false }  // already so
            try tx.queueDeletionOfForgottenRecord(collection, id: id, waiting: waiting)
            return false
        }
        if let waiting, waiting.kind == .create, waiting.isInFlight || waiting.baseLastModified == nil {
            return true  // already a create: sent again as it is
        }
        // NB: the base snapshot stays (or is taken now, for a synced record): another
        // device may upload the same record first, and this create then meets it as a
        // 412 to merge against what both last had — not as a clash of every field.
        if waiting == nil, let lastModified = row.lastModified {
            try tx.writeBase(BaseSnapshot(collection: collection, recordID: id, json: row.json, lastModified: lastModified))
        }
        try tx.setLastModified(collection, id: id, nil)
        if let waiting { try tx.clearSent(waiting.sequence) }
        try tx.writeOutbox(collection, id: id, kind: .create, base: nil, waiting: waiting)
        return true
    }
}
