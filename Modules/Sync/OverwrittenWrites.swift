import Domain
import Foundation
import Records
import Storage

// MARK: - OverwrittenWrites

/// Finds this device's acknowledged updates that another device's concurrent write
/// replaced on the server, and queues them again.
///
/// Kinto checks `If-Match` before it writes, without a lock: two devices updating one
/// record at the same moment against the same version can both be answered 200, and
/// the later write, which never saw the earlier, replaces it whole — an acknowledged
/// edit gone (measured here on 4 gunicorn workers: 20 of 400 records updated by two
/// concurrent batches kept only one device's change). The server's record then names
/// the write's parent in its lineage (`RecordLineage`) but not the write itself: it
/// descends from the version both were based on, not from this device's write. That
/// write is queued again against its parent (`SyncRules.reopen`), so the record
/// is merged three ways like any pulled change under a waiting edit: fields only one
/// side changed keep that change, a field both changed is a conflict.
///
/// A record that names the write descends from it (another device saw it): the memory
/// is dropped. So is it when the record names neither (its lineage was cut, or another
/// client wrote it): nothing tells what it saw, and the merge falls back to what it
/// does for records without lineage.
enum OverwrittenWrites {
    /// Reopens the writes that `records` replaced unseen, before they are applied, in the
    /// caller's transaction. - Returns: the ids reopened.
    static func reopen(_ records: [RawRecord], in collection: CollectionName, _ tx: StoreTransaction) throws -> [String] {
        guard try tx.hasAcknowledgedWrites(in: collection) else { return [] }
        var reopened: [String] = []
        for record in records {
            guard let write = try tx.acknowledgedWrite(collection, id: record.id),
                  record.lastModified > write.writtenLastModified else { continue }
            let lineage = record.isDeleted ? [] : RecordLineage.ids(in: record.json)
            if !lineage.contains(write.revision), let parent = write.parent, lineage.contains(parent) {
                // NB: a change in flight that the record is the echo of was applied after
                // the other write: nothing of this device's was lost.
                if let waiting = try tx.outboxEntry(collection, id: record.id), try MergeApplier.isEcho(of: waiting, record) { continue }
                if try SyncRules(tx).reopen(write) { reopened.append(record.id) }
            } else {
                try tx.forgetWrite(collection, id: record.id)
            }
        }
        return reopened
    }
}

extension SyncRun {
    /// Reports writes `OverwrittenWrites.reopen` queued again.
    func noteOverwritten(_ ids: [String], in collection: CollectionName) {
        for id in ids { emit(.writeOverwritten(collection, id: id)) }
        if !ids.isEmpty { collectionReport(collection) { $0.overwritten += ids.count } }
    }
}
