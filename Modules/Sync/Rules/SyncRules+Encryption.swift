import Domain
import Foundation
import Records
import Storage

// MARK: - Records still in the clear

extension SyncRules {
    /// Queues records of an encrypted account that came in the clear — written before
    /// encryption began, by a device that had not pulled them when it turned encryption
    /// on — to go up again sealed: an unchanged update of the version just stored. A
    /// record with a waiting change goes up sealed anyway; a deleted one needs nothing.
    public func sealAgain(_ ids: [String], in collection: CollectionName) throws(StorageError) {
        for id in ids {
            guard try tx.outboxEntry(collection, id: id) == nil,
                  let row = try tx.record(collection, id: id, includingDeleted: true), !row.isDeleted, row.lastModified != nil
            else { continue }
            try tx.saveLocal(collection, id: id, json: row.json)
        }
    }
}
