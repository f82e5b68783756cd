import Domain
import Foundation
import Records
import Storage

// MARK: - The plan

/// What moving a waiting change onto a newer server version, or dropping it, writes:
/// decided as a value from the waiting entry and the rows, with no store
/// (`WaitingChangePlanTests`); `SyncRules.rebasePendingChange` and `discardLocalChange`
/// read, plan and carry out.
struct WaitingChangePlan: Equatable {
    /// One write, in order.
    enum Step: Equatable {
        case clearSent(sequence: Int64)
        case removeOutbox(sequence: Int64)
        case writeBase(json: Data, lastModified: Int64)
        case removeBase
        case writeRecord(json: Data, lastModified: Int64?, deleted: Bool)
        case removeRecord
        /// Queue the change in the waiting entry's place; the entry queued is the rebase's result.
        case queue(OutboxEntry.Kind, base: Int64?)
        /// Keep a tombstone's stamp with the change just queued, so that a pull reaching
        /// back over it knows this version of the record (`serverStamps`).
        case keepServerTombstone(stamp: Int64)
    }

    var steps: [Step]

    /// Moves `waiting` onto `remote`, after the merge (`MergeApplier`) combined the two.
    ///
    /// The server version becomes the base snapshot and the entry's base, so the next
    /// push's `If-Match` names it; `merged` becomes the local content.
    /// - Parameters:
    ///   - row: the record's local row (hidden ones included).
    ///   - remote: the server's current version, or its tombstone.
    ///   - merged: the merged record; nil keeps the local content (e.g. for a waiting
    ///     delete, or when the local side wins).
    static func rebase(_ waiting: OutboxEntry, row: StoredRecord, onto remote: RawRecord, merged: Data?) -> Self {
        let content = merged ?? row.json
        // NB: an entry in flight keeps the kind it was sent with; the row says what the
        // reader did since.
        let deletedHere = merged == nil && row.isDeleted
        var steps: [Step] = [.clearSent(sequence: waiting.sequence)]
        if !remote.isDeleted {
            steps += [
                .writeBase(json: remote.json, lastModified: remote.lastModified),
                .writeRecord(json: content, lastModified: remote.lastModified, deleted: deletedHere),
                .queue(deletedHere ? .delete : .update, base: remote.lastModified),
            ]
        } else if deletedHere {
            // Deleted on both sides: nothing is left to push.
            steps += [.removeOutbox(sequence: waiting.sequence), .removeRecord]
        } else {
            // The server deleted what the reader changed: pushing it again re-creates it.
            steps += [
                .removeBase,
                .writeRecord(json: content, lastModified: nil, deleted: false),
                .queue(.create, base: nil),
                .keepServerTombstone(stamp: remote.lastModified),
            ]
        }
        return WaitingChangePlan(steps: steps)
    }

    /// Drops `waiting` and puts the record back as the server last had it (`base`); a
    /// never-pushed creation disappears.
    /// - Throws: `StorageError.corruptValue` for an update or deletion without its base.
    static func discard(_ waiting: OutboxEntry, base: BaseSnapshot?) throws(StorageError) -> Self {
        guard waiting.kind != .create else { return WaitingChangePlan(steps: [.removeOutbox(sequence: waiting.sequence), .removeRecord]) }
        guard let base else {
            throw .corruptValue(
                what: "base snapshot of \(waiting.collection.rawValue) record '\(waiting.recordID)'",
                reason: "missing for a waiting \(waiting.kind.rawValue)")
        }
        return WaitingChangePlan(steps: [
            .removeOutbox(sequence: waiting.sequence),
            .writeRecord(json: base.json, lastModified: base.lastModified, deleted: false),
            .removeBase,
        ])
    }
}

// MARK: - A waiting change meets a newer server version

extension SyncRules {
    /// Moves a waiting local change onto a newer server version, after the merge
    /// (`MergeApplier`) combined the two (a pulled record that changed under the edit,
    /// or a 412's `details.existing`), as `WaitingChangePlan.rebase` plans it.
    /// - Parameters:
    ///   - remote: the server's current version, or its tombstone.
    ///   - merged: the merged record; nil keeps the local content (e.g. for a waiting
    ///     delete, or when the local side wins).
    /// - Returns: the rebased entry; nil when the server deleted a record the reader
    ///   deleted too, which leaves nothing to push.
    @discardableResult
    public func rebasePendingChange(
        _ collection: CollectionName, id: String, onto remote: RawRecord, merged: Data?
    ) throws(StorageError) -> OutboxEntry? {
        guard let waiting = try tx.outboxEntry(collection, id: id) else {
            throw .notFound(what: "waiting change to \(collection.rawValue) record '\(id)'")
        }
        guard let row = try tx.record(collection, id: id, includingDeleted: true) else {
            throw .notFound(what: "\(collection.rawValue) record '\(id)'")
        }
        return try carryOut(WaitingChangePlan.rebase(waiting, row: row, onto: remote, merged: merged), for: waiting)
    }

    /// Drops a waiting local change and puts the record back as the server last had it
    /// (the base snapshot; a never-pushed creation disappears), as
    /// `WaitingChangePlan.discard` plans it. For "server wins" and for resolving a
    /// conflict with the server's side; the caller then applies the server's current
    /// version with `applyPulled`.
    /// - Throws: `StorageError.notFound` when no change is waiting.
    public func discardLocalChange(_ collection: CollectionName, id: String) throws(StorageError) {
        guard let waiting = try tx.outboxEntry(collection, id: id) else {
            throw .notFound(what: "waiting change to \(collection.rawValue) record '\(id)'")
        }
        let base = waiting.kind == .create ? nil : try tx.base(collection, id: id)
        try carryOut(try WaitingChangePlan.discard(waiting, base: base), for: waiting)
    }

    /// Writes a waiting change's plan, step by step, with no decision left to make.
    /// - Returns: the entry the plan queued, if it queued one.
    @discardableResult
    private func carryOut(_ plan: WaitingChangePlan, for waiting: OutboxEntry) throws(StorageError) -> OutboxEntry? {
        let (collection, id) = (waiting.collection, waiting.recordID)
        var queued: OutboxEntry?
        for step in plan.steps {
            switch step {
            case .clearSent(let sequence):
                try tx.clearSent(sequence)
            case .removeOutbox(let sequence):
                try tx.removeOutbox(sequence)
            case .writeBase(let json, let lastModified):
                try tx.writeBase(BaseSnapshot(collection: collection, recordID: id, json: json, lastModified: lastModified))
            case .removeBase:
                try tx.removeBase(collection, id: id)
            case .writeRecord(let json, let lastModified, let deleted):
                try tx.writeRecord(collection, id: id, json: json, lastModified: lastModified, deleted: deleted)
            case .removeRecord:
                try tx.removeRecord(collection, id: id)
            case .queue(let kind, let base):
                queued = try tx.writeOutbox(collection, id: id, kind: kind, base: base, waiting: waiting)
            case .keepServerTombstone(let stamp):
                // NB: planned only after a `.queue`, so there is an entry to keep it with.
                if let queued { try tx.setServerTombstone(queued.sequence, stamp: stamp) }
            }
        }
        return queued
    }
}
