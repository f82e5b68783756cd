import Domain
import Foundation
import Records
import Storage

// MARK: - Applying the server's changes

/// What `applyPulled` did with one pulled record.
public enum PulledRecordOutcome: Hashable, Sendable {
    /// The record (or its deletion) is now the local state.
    case applied
    /// Not applied: the reader has a waiting change to this record, which must be
    /// merged (`rebasePendingChange`), turned into a conflict, or discarded first.
    case pendingLocalChange(OutboxEntry)
}

/// A pulled record that a waiting local change held back, with that change.
public struct HeldRecord: Sendable {
    public let record: RawRecord
    public let waiting: OutboxEntry
}

extension SyncRules {
    /// A record pulled from the server becomes the local state unless a local change to
    /// it is waiting: such a record is left alone and reported, never overwritten. A
    /// stale copy of a record whose deletion the server acknowledged is deleted again.
    public func applyPulled(_ remote: RawRecord, to collection: CollectionName) throws(StorageError) -> PulledRecordOutcome {
        // NB: for one record, looking it up beats asking first whether anything is there.
        let plan = try PulledRecordsPlan([remote], pulledRecordsLookups(in: collection, askingFirst: false))
        if let held = plan.held.first { return .pendingLocalChange(held.waiting) }
        if plan.deletedAgain.isEmpty {
            try tx.storePulled(remote, in: collection)
        } else {
            try queueDeletion(of: remote, in: collection)
        }
        return .applied
    }

    /// The same rule for a whole page (`PulledRecordsPlan`): records with a waiting change
    /// are held, stale copies deleted again, and the rest stored as one write
    /// (`storePulled`, which may load a first pull in bulk when the page goes in whole).
    /// - Returns: the records held back, in page order.
    public func applyPulled(
        _ page: [RawRecord], to collection: CollectionName, morePagesFollow: Bool = false
    ) throws(StorageError) -> [HeldRecord] {
        let plan = try PulledRecordsPlan(page, pulledRecordsLookups(in: collection))
        try carryOut(plan, in: collection, morePagesFollow: morePagesFollow)
        return plan.held
    }

    // MARK: Reading and carrying out

    /// The plan's look-ups in this transaction. NB: with `askingFirst`, one look at the
    /// outbox and one at the remembered deletions per page; when neither holds anything of
    /// this collection (every first sync, most pulls), no record needs a look-up of its own.
    func pulledRecordsLookups(in collection: CollectionName, askingFirst: Bool = true) throws(StorageError) -> PulledRecordsPlan.Lookups {
        let tx = tx
        var (anyWaiting, anyDeletionRemembered) = (true, true)
        if askingFirst {
            anyWaiting = try tx.hasWaitingChanges(in: collection)
            anyDeletionRemembered = try tx.hasAcknowledgedDeletions(in: collection)
        }
        return PulledRecordsPlan.Lookups(
            anyWaiting: anyWaiting, anyDeletionRemembered: anyDeletionRemembered,
            waiting: { id throws(StorageError) in try tx.outboxEntry(collection, id: id) },
            deletedRevision: { id throws(StorageError) in try tx.acknowledgedDeletionRevision(collection, id: id) },
            holdsRow: { id throws(StorageError) in try tx.record(collection, id: id, includingDeleted: true) != nil })
    }

    /// Writes what `plan` decided: the deletions queued again, then the stored records as
    /// one write. Held records are the caller's to merge.
    func carryOut(_ plan: PulledRecordsPlan, in collection: CollectionName, morePagesFollow: Bool) throws(StorageError) {
        for remote in plan.deletedAgain {
            try queueDeletion(of: remote, in: collection)
        }
        try tx.storePulled(plan.stored, in: collection, morePagesFollow: morePagesFollow, mayLoadInBulk: plan.storesWholePage)
    }
}
