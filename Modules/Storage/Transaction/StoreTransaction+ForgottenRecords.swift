import Domain
import Foundation
import Records

// MARK: - Deleting a record the server forgot

extension StoreTransaction {
    /// A record deleted here that the server forgot while other devices still have it:
    /// they will upload it again, so the deletion must leave a tombstone on the server
    /// for them to pull. Kinto keeps one only for a record it has, so the record is put
    /// back as it last was (`If-None-Match: *`) and then deleted — queued as a create
    /// already sent (the server may have it from another device: a 412 carrying it is
    /// its acknowledgement) with the deletion waiting behind it.
    ///
    /// A local edit (`deleteLocal` of a record being uploaded again) and the end of a
    /// recovery (`SyncRules.requeueRecordsMissing`) both queue it, so it is written once,
    /// here.
    public func queueDeletionOfForgottenRecord(_ collection: CollectionName, id: String, waiting: OutboxEntry?) throws(StorageError) {
        guard let row = try record(collection, id: id, includingDeleted: true) else { return }
        let last = try base(collection, id: id)
        let content = last?.json ?? row.json
        let body = try PushBody.of(content, collection: collection, id: id)
        try writeBase(BaseSnapshot(collection: collection, recordID: id, json: content, lastModified: last?.lastModified ?? 0))
        try setLastModified(collection, id: id, nil)
        let entry = try writeOutbox(collection, id: id, kind: .create, base: nil, waiting: waiting)
        try db.run(
            "UPDATE outbox SET sent_revision = ?, sent_body = ?, revision = ? WHERE seq = ?",
            [.integer(entry.revision), .blob(body), .integer(entry.revision + 1), .integer(entry.sequence)],
            operation: "queue the deletion of a forgotten \(collection.rawValue) record"
        )
    }
}
