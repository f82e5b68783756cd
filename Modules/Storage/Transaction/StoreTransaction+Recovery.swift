import Domain
import Foundation
import Records

// MARK: - When the server forgets

/// What the store does when the sync engine finds that the server lost data it had
/// synced: its collection was deleted and recreated, or restored from an older backup.
///
/// The engine pulls the collection again from scratch (`startRecovery`); records the
/// server still has come back as usual, a local version newer than the server's is
/// pushed again over it (`keepNewerLocalVersion`), and once the last page is in, local
/// records the server no longer has are queued as creates (`requeueRecordsMissing`) —
/// guarded with `If-None-Match: *`, so a record another device re-uploaded first is
/// merged, not overwritten. Waiting local edits are kept throughout.
extension StoreTransaction {
    /// Marks a collection as recovering: its next pulls start from scratch until one
    /// completes (a run killed halfway starts again), and the server's collection
    /// object is remembered by its new timestamp.
    public func startRecovery(_ collection: CollectionName, collectionTimestamp: Int64?) throws(StorageError) {
        try updateSyncState(collection) { state in
            // NB: a recovery noticed again before it completed keeps the first cursor.
            if !state.recovering { state.cursorBeforeRecovery = state.cursor }
            state.recovering = true
            state.pushedTimestamp = nil
            state.cursor = nil
            state.etag = nil
            state.nextPage = nil
            state.collectionTimestamp = collectionTimestamp
        }
        try forgetAcknowledgedDeletions(collection)
    }

    /// During a recovery pull: when the store holds a newer version of a record than
    /// the one the server sent (the server went back to an older state), keeps the
    /// local version and queues it as an update of the server's.
    /// - Returns: whether the local version was kept (the pulled one is then not applied).
    public func keepNewerLocalVersion(_ remote: RawRecord, in collection: CollectionName) throws(StorageError) -> Bool {
        guard !remote.isDeleted, try outboxEntry(collection, id: remote.id) == nil,
              let local = try record(collection, id: remote.id, includingDeleted: true),
              let localModified = local.lastModified, localModified > remote.lastModified
        else { return false }
        try writeBase(BaseSnapshot(collection: collection, recordID: remote.id, json: remote.json, lastModified: remote.lastModified))
        try setRowLastModified(collection, id: remote.id, remote.lastModified)
        _ = try writeOutbox(collection, id: remote.id, kind: .update, base: remote.lastModified, waiting: nil)
        return true
    }

    /// A record deleted here that the server forgot while other devices still have it:
    /// they will upload it again, so the deletion must leave a tombstone on the server
    /// for them to pull. Kinto keeps one only for a record it has, so the record is put
    /// back as it last was (`If-None-Match: *`) and then deleted — queued as a create
    /// already sent (the server may have it from another device: a 412 carrying it is
    /// its acknowledgement) with the deletion waiting behind it.
    func queueDeletionOfForgottenRecord(_ collection: CollectionName, id: String, waiting: OutboxEntry?) throws(StorageError) {
        guard let row = try record(collection, id: id, includingDeleted: true) else { return }
        let last = try base(collection, id: id)
        let content = last?.json ?? row.json
        let body = try PushBody.of(content, collection: collection, id: id)
        try writeBase(BaseSnapshot(collection: collection, recordID: id, json: content, lastModified: last?.lastModified ?? 0))
        try setRowLastModified(collection, id: id, nil)
        let entry = try writeOutbox(collection, id: id, kind: .create, base: nil, waiting: waiting)
        try db.run(
            "UPDATE outbox SET sent_revision = ?, sent_body = ?, revision = ? WHERE seq = ?",
            [.integer(entry.revision), .blob(body), .integer(entry.revision + 1), .integer(entry.sequence)],
            operation: "queue the deletion of a forgotten \(collection.rawValue) record"
        )
    }

    /// During a recovery pull: a record the server still has from before the store's
    /// cursor (so this store had pulled it) but which this store no longer has, was
    /// deleted here after the server's backup was taken. Queues its deletion again.
    /// - Returns: whether the deletion was queued (the pulled record is then not applied).
    public func keepLocalDeletion(_ remote: RawRecord, in collection: CollectionName, cursorBefore: Int64?) throws(StorageError) -> Bool {
        guard !remote.isDeleted, let cursorBefore, remote.lastModified <= cursorBefore,
              try record(collection, id: remote.id, includingDeleted: true) == nil
        else { return false }
        let indexing = try indexing(collection, id: remote.id, json: remote.json, requireID: false)
        try writeRecord(
            collection, id: remote.id, json: remote.json, lastModified: remote.lastModified, deleted: true,
            indexing: indexing, operation: "queue the deletion of a restored \(collection.rawValue) record"
        )
        try writeBase(BaseSnapshot(collection: collection, recordID: remote.id, json: remote.json, lastModified: remote.lastModified))
        _ = try writeOutbox(collection, id: remote.id, kind: .delete, base: remote.lastModified, waiting: nil)
        return true
    }

    /// At the end of a recovery pull: queues every local record the server no longer
    /// has as a create (keeping its content, any waiting edit, and the last version it
    /// had from the server as the base of a merge), drops waiting
    /// deletions of records the server no longer has, and ends the recovery.
    /// - Parameter present: the ids of every record the recovery pull brought.
    /// - Returns: how many records were queued to be uploaded again.
    @discardableResult
    public func requeueRecordsMissing(from collection: CollectionName, present: Set<String>) throws(StorageError) -> Int {
        let local = try db.query(
            "SELECT id, deleted, json, last_modified FROM records WHERE collection = ?", [.text(collection.rawValue)],
            operation: "list local \(collection.rawValue) records"
        ) { row in (row.text(0), row.bool(1), row.blob(2), row.optionalInt64(3)) }
        var requeued = 0
        for (id, deleted, json, lastModified) in local where !present.contains(id) {
            let waiting = try outboxEntry(collection, id: id)
            if deleted {
                // Deleted here, gone there — but other devices still have it and upload it
                // again: the deletion must reach the server as a tombstone they will pull.
                if waiting?.isInFlight == true && waiting?.kind == .create { continue }  // already so
                try queueDeletionOfForgottenRecord(collection, id: id, waiting: waiting)
                continue
            }
            if let waiting, waiting.kind == .create, waiting.isInFlight || waiting.baseLastModified == nil {
                requeued += 1  // already a create: sent again as it is
                continue
            }
            // NB: the base snapshot stays (or is taken now, for a synced record): another
            // device may upload the same record first, and this create then meets it as
            // a 412 to merge against what both last had — not as a clash of every field.
            if waiting == nil, let lastModified {
                try writeBase(BaseSnapshot(collection: collection, recordID: id, json: json, lastModified: lastModified))
            }
            try setRowLastModified(collection, id: id, nil)
            if let waiting { try clearSent(waiting.sequence) }
            _ = try writeOutbox(collection, id: id, kind: .create, base: nil, waiting: waiting)
            requeued += 1
        }
        try updateSyncState(collection) { state in
            state.recovering = false
            state.cursorBeforeRecovery = nil
        }
        return requeued
    }
}
