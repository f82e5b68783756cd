import Domain
import Foundation
import Records
import Storage

// MARK: - A waiting change meets a newer server version

extension SyncRules {
    /// Moves a waiting local change onto a newer server version, after the merge
    /// (`MergeApplier`) combined the two (a pulled record that changed under the edit,
    /// or a 412's `details.existing`).
    ///
    /// The server version becomes the base snapshot and the entry's base, so the next
    /// push's `If-Match` names it; `merged` becomes the local content.
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
        let content = merged ?? row.json
        // NB: an entry in flight keeps the kind it was sent with; the row says what the
        // reader did since.
        let deletedHere = merged == nil && row.isDeleted
        try tx.clearSent(waiting.sequence)
        guard remote.isDeleted else {
            try tx.writeBase(BaseSnapshot(collection: collection, recordID: id, json: remote.json, lastModified: remote.lastModified))
            try tx.writeRecord(collection, id: id, json: content, lastModified: remote.lastModified, deleted: deletedHere)
            return try tx.writeOutbox(
                collection, id: id, kind: deletedHere ? .delete : .update, base: remote.lastModified, waiting: waiting)
        }
        if deletedHere {
            try tx.removeOutbox(waiting.sequence)
            try tx.removeRecord(collection, id: id)
            return nil
        }
        // The server deleted what the reader changed: pushing it again re-creates it.
        try tx.removeBase(collection, id: id)
        try tx.writeRecord(collection, id: id, json: content, lastModified: nil, deleted: false)
        let entry = try tx.writeOutbox(collection, id: id, kind: .create, base: nil, waiting: waiting)
        // NB: the tombstone's stamp is kept with the create, so that a pull reaching
        // back over it knows this version of the record (`serverStamps`).
        try tx.setServerTombstone(entry.sequence, stamp: remote.lastModified)
        return entry
    }

    /// Drops a waiting local change and puts the record back as the server last had it
    /// (the base snapshot; a never-pushed creation disappears). For "server wins" and
    /// for resolving a conflict with the server's side; the caller then applies the
    /// server's current version with `applyPulled`.
    /// - Throws: `StorageError.notFound` when no change is waiting.
    public func discardLocalChange(_ collection: CollectionName, id: String) throws(StorageError) {
        guard let waiting = try tx.outboxEntry(collection, id: id) else {
            throw .notFound(what: "waiting change to \(collection.rawValue) record '\(id)'")
        }
        try tx.removeOutbox(waiting.sequence)
        guard waiting.kind != .create else {
            try tx.removeRecord(collection, id: id)
            return
        }
        guard let base = try tx.base(collection, id: id) else {
            throw .corruptValue(
                what: "base snapshot of \(collection.rawValue) record '\(id)'", reason: "missing for a waiting \(waiting.kind.rawValue)")
        }
        try tx.writeRecord(collection, id: id, json: base.json, lastModified: base.lastModified, deleted: false)
        try tx.removeBase(collection, id: id)
    }
}
