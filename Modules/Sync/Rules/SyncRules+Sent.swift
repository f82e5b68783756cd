import Domain
import Foundation
import Records
import Storage

// MARK: - A change goes out

extension SyncRules {
    /// Marks an entry as sent, with the exact body that goes out (built from `entry` as
    /// read), before the request leaves: from then on it is in flight
    /// (`OutboxEntry.sentRevision`) and repeated as it was until acknowledged. Marking
    /// an entry already in flight changes nothing.
    ///
    /// A body gets the write's lineage (`RecordLineage`): a new random revision id
    /// appended to the lineage of the server version the change was made against (the
    /// base snapshot; the row itself when there is none). Id and body are kept, so a
    /// repeat sends the same id.
    /// - Parameter body: the body of a `create` or `update`; nil for a `delete`.
    /// - Returns: the entry as it is now (in flight); nil when the reader changed it (or
    ///   it went away) since `entry` was read — the body no longer says what is here, so
    ///   it is not sent; the next batch reads it again.
    public func markSent(_ entry: OutboxEntry, body: Data?) throws(StorageError) -> OutboxEntry? {
        let (collection, id) = (entry.collection, entry.recordID)
        guard let current = try tx.outboxEntry(collection, id: id), current.sequence == entry.sequence else {
            return nil
        }
        if current.isInFlight { return current }
        guard current.revision == entry.revision else { return nil }
        let stamped = try body.map { body throws(StorageError) in try lineageStamped(body, of: entry) }
        try tx.markSent(current.sequence, body: stamped?.body, lineageID: stamped?.lineageID)
        var sent = current
        sent.sentRevision = current.revision
        sent.sentBody = stamped?.body
        sent.sentLineageID = stamped?.lineageID
        return sent
    }

    /// A body with its lineage, and the revision id this write adds (nil when it adds none).
    private struct StampedBody {
        let body: Data
        let lineageID: String?
    }

    /// The body of `entry`'s write, stamped with its lineage.
    private func lineageStamped(_ body: Data, of entry: OutboxEntry) throws(StorageError) -> StampedBody {
        let (collection, id) = (entry.collection, entry.recordID)
        let base = try tx.base(collection, id: id)?.json
        let row = try tx.record(collection, id: id, includingDeleted: true)?.json
        let parents = RecordLineage.ids(in: base ?? row)
        if entry.kind == .create, let base, base == row, !parents.isEmpty {
            // NB: an unchanged record uploaded again after the server forgot it is the
            // version it was, not a new write: it keeps that version's lineage, so a
            // device that deleted that version knows it (`AcknowledgedDeletions`).
            return StampedBody(body: try PushBody.stamping(body, lineage: parents, collection: collection, id: id), lineageID: nil)
        }
        let lineageID = RecordLineage.newID()
        let lineage = RecordLineage.appending(lineageID, to: parents)
        return StampedBody(body: try PushBody.stamping(body, lineage: lineage, collection: collection, id: id), lineageID: lineageID)
    }
}
