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
        if let waiting = try tx.outboxEntry(collection, id: remote.id) {
            return .pendingLocalChange(waiting)
        }
        if try deleteAgainIfStale(remote, in: collection) { return .applied }
        try tx.storePulled(remote, in: collection)
        return .applied
    }

    /// The same rule for a whole page: records with a waiting change are held, stale
    /// copies deleted again, and the rest stored as one write (`storePulled`, which may
    /// load a first pull in bulk).
    /// - Returns: the records held back, in page order.
    public func applyPulled(
        _ page: [RawRecord], to collection: CollectionName, morePagesFollow: Bool = false
    ) throws(StorageError) -> [HeldRecord] {
        // NB: one look at the outbox and one at the remembered deletions per page: when
        // neither holds anything of this collection (every first sync, most pulls), no
        // record needs a look-up of its own.
        let anyWaiting = try tx.hasWaitingChanges(in: collection)
        let anyDeletionRemembered = try tx.hasAcknowledgedDeletions(in: collection)
        guard anyWaiting || anyDeletionRemembered else {
            try tx.storePulled(page, in: collection, morePagesFollow: morePagesFollow)
            return []
        }
        var held: [HeldRecord] = []
        var stored: [RawRecord] = []
        for remote in page {
            if anyWaiting, let waiting = try tx.outboxEntry(collection, id: remote.id) {
                held.append(HeldRecord(record: remote, waiting: waiting))
            } else if anyDeletionRemembered, try deleteAgainIfStale(remote, in: collection) {
                continue
            } else {
                stored.append(remote)
            }
        }
        try tx.storePulled(stored, in: collection, morePagesFollow: morePagesFollow, mayLoadInBulk: false)
        return held
    }
}
