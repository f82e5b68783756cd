import Domain
import Foundation
import Storage

// MARK: - MergeApplier

/// Applies a three-way merge to the store, inside the caller's transaction: used when a
/// pulled record changed under a waiting local edit, and when a push got a 412.
struct MergeApplier {
    let policy: ConflictPolicy
    let now: Date

    /// What happened, for events and the report.
    enum Result: Equatable {
        /// The server's version is now the local one; the local change is gone because
        /// it was already there or the policy let the server win.
        case tookRemote(clash: Bool)
        /// Local and server changes combined; the result waits in the outbox for a push.
        case merged
        /// Stored as a conflict for `shelf resolve`; the local edit is kept, unpushed.
        case conflict(MergeConflict)
    }

    /// - Parameters:
    ///   - remote: the server's current record, or its tombstone; nil when the server
    ///     says only that the record is gone.
    func apply(
        _ collection: CollectionName, id: String, remote: RemoteRecord?, in tx: StoreTransaction
    ) throws -> Result {
        let baseData = try tx.base(collection, id: id)?.json
        let localRow = try tx.record(collection, id: id, includingDeleted: true)
        let waiting = try tx.outboxEntry(collection, id: id)
        let localData = (waiting?.kind == .delete || localRow?.isDeleted == true) ? nil : localRow?.json
        let remoteData = (remote?.isDeleted ?? true) ? nil : remote?.json

        let outcome = ThreeWayMerge.merge(
            base: try RecordJSON.fields(baseData), local: try RecordJSON.fields(localData),
            remote: try RecordJSON.fields(remoteData), policy: policy)
        let tombstone = remote ?? RemoteRecord(
            id: id, lastModified: waiting?.baseLastModified ?? 0, isDeleted: true, json: Data("{}".utf8))

        switch outcome {
        case .alreadyEqual, .acceptRemote:
            if waiting != nil { try tx.discardLocalChange(collection, id: id) }
            _ = try tx.removeConflict(collection, id: id)
            _ = try tx.applyRemote(tombstone, to: collection)
            return .tookRemote(clash: outcome == .acceptRemote && localData != nil && waiting != nil && policy == .serverWins)
        case .push(let content):
            let merged = try content.map { try RecordJSON.data($0, id: id) }
            try tx.rebasePendingChange(collection, id: id, onto: tombstone, merged: merged)
            _ = try tx.removeConflict(collection, id: id)
            return .merged
        case .conflict(let conflict):
            try tx.recordConflict(Conflict(
                collection: collection, recordID: id, base: baseData, local: localData, remote: remoteData,
                remoteLastModified: remote.map(\.lastModified), detectedAt: now))
            return .conflict(conflict)
        }
    }
}
