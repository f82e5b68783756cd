import Domain
import Foundation
import Records

// MARK: - Remembering and reopening acknowledged writes

/// See `AcknowledgedWrite`.
extension StoreTransaction {
    // MARK: Remembering

    /// Remembers the update `pushed` that the server stored as `server`, based on
    /// `base`; nothing when the write carried no lineage id.
    func rememberWrite(_ pushed: OutboxEntry, server: RawRecord, base: BaseSnapshot) throws(StorageError) {
        guard pushed.kind == .update, let revision = pushed.sentLineageID, !server.isDeleted else { return }
        let now = clock()
        try db.run(
            """
            INSERT OR REPLACE INTO acknowledged_writes
                (collection, id, revision, parent, base, base_last_modified, written, written_last_modified, acknowledged_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(pushed.collection.rawValue), .text(pushed.recordID), .text(revision),
                .text(RecordLineage.ids(in: base.json).last), .blob(base.json), .integer(base.lastModified),
                .blob(server.json), .integer(server.lastModified), .date(now),
            ],
            operation: "remember an acknowledged write of \(pushed.collection.rawValue) record '\(pushed.recordID)'")
        try prune(.acknowledgedWrites, now: now, maximumAge: AcknowledgedWrite.maximumAge, maximumCount: AcknowledgedWrite.maximumCount)
    }

    /// Forgets a record's acknowledged write.
    public func forgetWrite(_ collection: CollectionName, id: String) throws(StorageError) {
        try db.run(
            "DELETE FROM acknowledged_writes WHERE collection = ? AND id = ?", [.text(collection.rawValue), .text(id)],
            operation: "forget an acknowledged write")
    }

    // MARK: Reopening

    /// Queues an acknowledged write again, as a change against the version it was based
    /// on: with no waiting change, the record becomes what was written, waiting as an
    /// update of `base`; a waiting update keeps its content and is merged from `base`
    /// instead (one in flight keeps the `If-Match` it was sent with). A waiting create or
    /// deletion is left as it is.
    /// - Returns: whether the write is queued again (its entry is then forgotten).
    public func reopen(_ write: AcknowledgedWrite) throws(StorageError) -> Bool {
        let (collection, id) = (write.collection, write.recordID)
        let waiting = try outboxEntry(collection, id: id)
        if let waiting, waiting.kind != .update { return false }
        try writeBase(BaseSnapshot(collection: collection, recordID: id, json: write.base, lastModified: write.baseLastModified))
        if let waiting, waiting.isInFlight {
            // NB: what was sent stays as it was; only the merge's starting point moves.
        } else if let waiting {
            try db.run(
                "UPDATE outbox SET base_last_modified = ? WHERE seq = ?", [.integer(write.baseLastModified), .integer(waiting.sequence)],
                operation: "base a waiting \(collection.rawValue) change on an earlier version")
        } else {
            let indexing = try indexing(collection, id: id, json: write.written, requireID: false)
            try writeRecord(
                collection, id: id, json: write.written, lastModified: write.baseLastModified, deleted: false, indexing: indexing,
                operation: "queue an overwritten \(collection.rawValue) write again")
            _ = try writeOutbox(collection, id: id, kind: .update, base: write.baseLastModified, waiting: nil)
        }
        try forgetWrite(collection, id: id)
        return true
    }
}
