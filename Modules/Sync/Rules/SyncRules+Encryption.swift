import Domain
import Foundation
import Records
import Storage

// MARK: - Records still in the clear

extension SyncRules {
    /// Queues records of an encrypted account that came in the clear during its plaintext
    /// period — written before encryption began, by a device that had not pulled them when
    /// it turned encryption on — to go up again sealed: an unchanged update of the version
    /// just stored. A record with a waiting change goes up sealed anyway; a deleted one
    /// needs nothing.
    public func sealAgain(_ ids: [String], in collection: CollectionName) throws(StorageError) {
        for id in ids {
            guard try tx.outboxEntry(collection, id: id) == nil,
                  let row = try tx.record(collection, id: id, includingDeleted: true), !row.isDeleted, row.lastModified != nil
            else { continue }
            try tx.saveLocal(collection, id: id, json: row.json)
        }
    }

    /// Queues every record of `collection` the server has (and every sealed deletion this
    /// store remembers of it) to go up sealed again: what `enable`, `rotate` and the
    /// upgrade of a format 1 keyring start.
    /// - Returns: how many were queued.
    public func sealAllAgain(in collection: CollectionName) throws(StorageError) -> Int {
        var queued = 0
        for row in try tx.rows(of: collection) where !row.isDeleted && row.lastModified != nil {
            guard try tx.outboxEntry(collection, id: row.id) == nil else { continue }
            try tx.saveLocal(collection, id: row.id, json: row.json)
            queued += 1
        }
        for (id, deletion) in try tx.sealedDeletions(in: collection) {
            guard try tx.record(collection, id: id, includingDeleted: true) == nil else { continue }
            try sealDeletionAgain(collection, id: id, deletion)
            queued += 1
        }
        return queued
    }

    /// Queues a remembered sealed deletion to be written again (under the current key, as
    /// the next number): a hidden row and its deletion, against the deletion's stamp.
    func sealDeletionAgain(_ collection: CollectionName, id: String, _ deletion: SealedDeletion) throws(StorageError) {
        var fields: [String: JSONValue] = ["id": .string(id), VersionFields.sequence: .number(Double(deletion.sequence))]
        if let revision = deletion.revision { fields[VersionFields.lineage] = .array([.string(revision)]) }
        let json: Data
        do {
            json = try WireJSON.data(fields)
        } catch {
            throw .invalidRecord(collection: collection, id: id, reason: "its deletion cannot be written as JSON")
        }
        try queueDeletion(of: RawRecord(id: id, lastModified: deletion.lastModified, json: json), in: collection)
    }
}
