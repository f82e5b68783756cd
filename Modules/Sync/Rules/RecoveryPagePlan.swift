import Domain
import Foundation
import Records
import Storage

// MARK: - RecoveryPagePlan

/// What a recovery's page (the server forgot data, `SyncRules+Recovery`) does with each
/// record before the usual rules see it, decided as a value: the local version is kept
/// when it is newer than the server's (the server went back to an older state), a local
/// deletion is kept when the store pulled the record before and deleted it since, and
/// the rest goes on to be applied. Nothing here writes: the store is read through the
/// look-ups given (`RecoveryPagePlanTests`, table-driven without a store), and
/// `SyncRules.carryOut(_:in:)` writes what was decided.
struct RecoveryPagePlan: Equatable {
    /// Pulled records whose newer local version is kept and queued as an update of them.
    var keptNewerLocal: [RawRecord] = []
    /// Pulled records deleted here since the server's backup: their deletion is queued again.
    var keptLocalDeletion: [RawRecord] = []
    /// The rest, in page order: applied as any pulled record.
    var applied: [RawRecord] = []

    /// What the decision reads of the store, per record.
    struct Lookups {
        /// Whether a local change to the record is waiting.
        var waiting: (String) throws(StorageError) -> Bool
        /// The local row (a hidden one too), when there is one: its server stamp.
        var localRow: (String) throws(StorageError) -> LocalRow?
    }

    /// What the plan needs of a local row.
    struct LocalRow: Equatable {
        /// The server version the local row is (nil: never synced).
        var lastModified: Int64?
    }

    /// - Parameter cursorBefore: the store's cursor before the recovery started: records
    ///   stamped up to it were pulled by this store before.
    init(_ page: [RawRecord], cursorBefore: Int64?, _ lookups: Lookups) throws(StorageError) {
        applied.reserveCapacity(page.count)
        for remote in page {
            guard !remote.isDeleted else {
                applied.append(remote)
                continue
            }
            if let local = try lookups.localRow(remote.id) {
                if let stamp = local.lastModified, stamp > remote.lastModified, try !lookups.waiting(remote.id) {
                    keptNewerLocal.append(remote)
                } else {
                    applied.append(remote)
                }
            } else if let cursorBefore, remote.lastModified <= cursorBefore {
                keptLocalDeletion.append(remote)
            } else {
                applied.append(remote)
            }
        }
    }
}

extension SyncRules {
    /// The recovery plan's look-ups in this transaction.
    func recoveryLookups(in collection: CollectionName) -> RecoveryPagePlan.Lookups {
        let tx = tx
        return RecoveryPagePlan.Lookups(
            waiting: { id throws(StorageError) in try tx.outboxEntry(collection, id: id) != nil },
            localRow: { id throws(StorageError) in
                try tx.record(collection, id: id, includingDeleted: true).map { RecoveryPagePlan.LocalRow(lastModified: $0.lastModified) }
            })
    }

    /// Writes what a recovery's plan kept: newer local versions queued as updates of the
    /// server's, local deletions queued again. The applied records are the caller's.
    func carryOut(_ plan: RecoveryPagePlan, in collection: CollectionName) throws(StorageError) {
        for remote in plan.keptNewerLocal { try queueNewerLocalVersion(over: remote, in: collection) }
        for remote in plan.keptLocalDeletion { try queueDeletion(of: remote, in: collection) }
    }
}
