import Domain
import Foundation
import Records
import Storage

// MARK: - Writes another device overwrote unseen

/// See `AcknowledgedWrite` and `OverwrittenWrites`: an acknowledged write is remembered
/// with its base, so that a pulled version that descends from the base but not from
/// the write queues the write again.
extension SyncRules {
    /// Remembers the update, or the create sent against a version, that the server stored
    /// as `server`, based on `base`; nothing when the write carried no lineage id.
    func rememberWrite(_ pushed: OutboxEntry, server: RawRecord, base: BaseSnapshot) throws(StorageError) {
        guard pushed.kind != .delete, let revision = pushed.sentLineageID, !server.isDeleted else { return }
        try tx.writeAcknowledgedWrite(AcknowledgedWrite(
            collection: pushed.collection, recordID: pushed.recordID, revision: revision,
            parent: RecordLineage.ids(in: base.json).last, base: base.json, baseLastModified: base.lastModified,
            written: server.json, writtenLastModified: server.lastModified))
    }

    /// Queues an acknowledged write again, as a change against the version it was based
    /// on: with no waiting change, the record becomes what was written, waiting as an
    /// update of `base`; a waiting update keeps its content and is merged from `base`
    /// instead (one in flight keeps the `If-Match` it was sent with). A waiting create or
    /// deletion is left as it is.
    /// - Returns: whether the write is queued again (its memory is then forgotten).
    func reopen(_ write: AcknowledgedWrite) throws(StorageError) -> Bool {
        let (collection, id) = (write.collection, write.recordID)
        let waiting = try tx.outboxEntry(collection, id: id)
        if let waiting, waiting.kind != .update { return false }
        try tx.writeBase(BaseSnapshot(collection: collection, recordID: id, json: write.base, lastModified: write.baseLastModified))
        if let waiting, waiting.isInFlight {
            // NB: what was sent stays as it was; only the merge's starting point moves.
        } else if let waiting {
            try tx.setBase(waiting.sequence, base: write.baseLastModified)
        } else {
            try tx.writeRecord(collection, id: id, json: write.written, lastModified: write.baseLastModified, deleted: false)
            try tx.writeOutbox(collection, id: id, kind: .update, base: write.baseLastModified, waiting: nil)
        }
        try tx.forgetWrite(collection, id: id)
        return true
    }
}
