import Domain
import Foundation
import Records
import Storage

// MARK: - OverwrittenWrites

/// Finds this device's acknowledged writes (updates, and creates sent against a version:
/// `AcknowledgedWrite`) that another device's concurrent write replaced on the server, and
/// queues them again.
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
    /// What one pulled record does to this device's memory of its acknowledged write.
    enum Step: Equatable {
        /// The record replaced the write unseen: the write is queued again (`SyncRules.reopen`).
        case reopen(AcknowledgedWrite)
        /// The record descends from the write, or nothing tells: the memory is dropped.
        case forget(id: String)
    }

    /// What the decision reads of the store, per record.
    struct Lookups {
        /// The collection has acknowledged writes remembered (else nothing is looked up).
        var anyRemembered: Bool
        /// The acknowledged write remembered for a record.
        var write: (String) throws -> AcknowledgedWrite?
        /// The waiting (or in flight) change to a record.
        var waiting: (String) throws -> OutboxEntry?
    }

    /// Reopens the writes that `records` replaced unseen, before they are applied, in the
    /// caller's transaction. - Returns: the ids reopened.
    static func reopen(_ records: [RawRecord], in collection: CollectionName, _ tx: StoreTransaction) throws -> [String] {
        let lookups = Lookups(
            anyRemembered: try tx.hasAcknowledgedWrites(in: collection),
            write: { id in try tx.acknowledgedWrite(collection, id: id) },
            waiting: { id in try tx.outboxEntry(collection, id: id) })
        var reopened: [String] = []
        for step in try plan(records, lookups) {
            switch step {
            case .reopen(let write):
                if try SyncRules(tx).reopen(write) { reopened.append(write.recordID) }
            case .forget(let id):
                try tx.forgetWrite(collection, id: id)
            }
        }
        return reopened
    }

    /// The decision, without the store (`OverwrittenWritesPlanTests`): a step for each
    /// record newer than the write remembered for it, in page order.
    static func plan(_ records: [RawRecord], _ lookups: Lookups) throws -> [Step] {
        guard lookups.anyRemembered else { return [] }
        var steps: [Step] = []
        for record in records {
            guard let write = try lookups.write(record.id), record.lastModified > write.writtenLastModified else { continue }
            let lineage = record.isDeleted ? [] : RecordLineage.ids(in: record.json)
            if !lineage.contains(write.revision), let parent = write.parent, lineage.contains(parent) {
                // NB: a change in flight that the record is the echo of was applied after
                // the other write: nothing of this device's was lost.
                if let waiting = try lookups.waiting(record.id), try MergeApplier.isEcho(of: waiting, record) { continue }
                steps.append(.reopen(write))
            } else {
                steps.append(.forget(id: record.id))
            }
        }
        return steps
    }
}

extension SyncRun {
    /// Reports writes `OverwrittenWrites.reopen` queued again.
    func noteOverwritten(_ ids: [String], in collection: CollectionName) {
        for id in ids { emit(.writeOverwritten(collection, id: id)) }
        if !ids.isEmpty { collectionReport(collection) { $0.overwritten += ids.count } }
    }
}
