import Domain
import Foundation
import Records
import Storage

// MARK: - PulledRecordsPlan

/// What a pulled page's records do to the store, decided as a value: each is stored as
/// the local state, held back for a waiting local change, or — a stale copy of a record
/// whose deletion the server acknowledged — deleted again. Nothing here writes: the
/// decision reads what it needs of the store through the lookups it is given, only when
/// the page asks for it, so it is tested table by table without a store
/// (`PulledRecordsPlanTests`). `SyncRules.applyPulled(_:to:morePagesFollow:)` reads,
/// asks for the plan and carries it out in the page's transaction.
struct PulledRecordsPlan {
    /// The records stored as the local state (`storePulled`), in page order.
    var stored: [RawRecord]
    /// The records left alone, each with the waiting local change that is merged with it,
    /// or turned into a conflict, first; in page order.
    var held: [HeldRecord]
    /// Stale uploads of versions the server acknowledged deleting, in page order: each is
    /// kept as a hidden row and its deletion queued again (`queueDeletion`).
    var deletedAgain: [RawRecord]

    /// Every record of the page is stored, none held or deleted again: the page may go
    /// in as part of a bulk load.
    var storesWholePage: Bool { held.isEmpty && deletedAgain.isEmpty }

    // MARK: Deciding

    /// What the store knows that the decision needs, looked up per record and only when
    /// the collection holds anything of the kind (`anyWaiting`, `anyDeletionRemembered`):
    /// a first sync and most pulls look nothing up.
    struct Lookups {
        /// The collection has waiting local changes.
        var anyWaiting: Bool
        /// The collection has acknowledged deletions remembered.
        var anyDeletionRemembered: Bool
        /// The waiting change to a record, if any.
        var waiting: (String) throws(StorageError) -> OutboxEntry?
        /// The revision id of a record's acknowledged deletion, if one is remembered.
        var deletedRevision: (String) throws(StorageError) -> String?
        /// Whether the store holds a row of the record, a hidden one too.
        var holdsRow: (String) throws(StorageError) -> Bool
    }

    /// The plan for `page`.
    init(_ page: [RawRecord], _ lookups: Lookups) throws(StorageError) {
        (held, deletedAgain) = ([], [])
        // NB: the stored list is the page itself (no copy) unless a record is not stored.
        guard lookups.anyWaiting || lookups.anyDeletionRemembered else {
            stored = page
            return
        }
        stored = []
        stored.reserveCapacity(page.count)
        for remote in page {
            if lookups.anyWaiting, let waiting = try lookups.waiting(remote.id) {
                held.append(HeldRecord(record: remote, waiting: waiting))
            } else if lookups.anyDeletionRemembered, try Self.isStaleCopyOfADeletion(remote, lookups) {
                deletedAgain.append(remote)
            } else {
                stored.append(remote)
            }
        }
    }

    /// A pulled live record that is exactly the version whose deletion the server
    /// acknowledged (its lineage ends with the remembered revision id), while the store
    /// holds no row of it: another device uploaded a stale copy
    /// (`SyncRules+AcknowledgedDeletions`).
    private static func isStaleCopyOfADeletion(_ remote: RawRecord, _ lookups: Lookups) throws(StorageError) -> Bool {
        guard !remote.isDeleted, let revision = try lookups.deletedRevision(remote.id),
              RecordLineage.ids(in: remote.json).last == revision
        else { return false }
        return try !lookups.holdsRow(remote.id)
    }
}
