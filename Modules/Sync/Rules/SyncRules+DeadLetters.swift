import Domain
import Foundation
import Records
import Storage

// MARK: - A change refused for good

extension SyncRules {
    /// Parks a change the server refused for good, so the rest of the outbox can sync.
    ///
    /// The refused content is kept in the dead letter, and the record goes back to the
    /// server's version (`discardLocalChange`), so local state and outbox stay in step.
    /// `StoreTransaction.requeueDeadLetter` applies the change again as a new local edit.
    /// - Parameters:
    ///   - status: the HTTP status of the refusal; `reason`: the server's message.
    @discardableResult
    public func moveToDeadLetters(_ entry: OutboxEntry, status: Int, reason: String) throws(StorageError) -> DeadLetter {
        let letter = try tx.addDeadLetter(entry, status: status, reason: reason)
        try discardLocalChange(entry.collection, id: entry.recordID)
        return letter
    }
}
