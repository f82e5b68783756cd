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
    ///
    /// On an encrypted account (`numbered`) the body also gets the version's sequence
    /// number, one more than the highest this device knows of the record (its base, its
    /// row, its remembered sealed deletion): it goes into the seal's authenticated data,
    /// so no older version can pass for a newer one. A deletion then has a body too — its
    /// lineage and number — sent as a sealed deletion (`RecordSealer.sealDeletion`).
    /// - Parameters:
    ///   - body: the body of a `create` or `update`; nil for a `delete`.
    ///   - numbered: the account is encrypted and numbers its versions.
    /// - Returns: the entry as it is now (in flight); nil when the reader changed it (or
    ///   it went away) since `entry` was read — the body no longer says what is here, so
    ///   it is not sent; the next batch reads it again.
    public func markSent(_ entry: OutboxEntry, body: Data?, numbered: Bool = false) throws(StorageError) -> OutboxEntry? {
        let (collection, id) = (entry.collection, entry.recordID)
        guard let current = try tx.outboxEntry(collection, id: id), current.sequence == entry.sequence else {
            return nil
        }
        if current.isInFlight { return current }
        guard current.revision == entry.revision else { return nil }
        // NB: the deletion of a record never sealed (its number unknown: renamed by `enable`,
        // or from before encryption) goes as a Kinto tombstone, so its id leaves the server's
        // live records; a device that saw it sealed never meets one (`IntegrityGate`).
        var sealedDeletion = false
        if numbered, entry.kind == .delete { sealedDeletion = try knownSequence(of: entry) > 0 }
        let content = body ?? (sealedDeletion ? Data("{}".utf8) : nil)
        let stamped = try content.map { body throws(StorageError) in try lineageStamped(body, of: entry, numbered: numbered) }
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

    /// The body of `entry`'s write, stamped with its lineage (and number, when `numbered`).
    private func lineageStamped(_ body: Data, of entry: OutboxEntry, numbered: Bool) throws(StorageError) -> StampedBody {
        let (collection, id) = (entry.collection, entry.recordID)
        let base = try tx.base(collection, id: id)?.json
        let row = try tx.record(collection, id: id, includingDeleted: true)?.json
        let parents = RecordLineage.ids(in: base ?? row)
        let known = numbered ? try knownSequence(of: id, in: collection, base: base, row: row) : nil
        if entry.kind != .delete, let base, base == row, entry.kind == .update || !parents.isEmpty {
            // NB: an unchanged record uploaded again — after the server forgot it, over a
            // version the server put back or wrote in the clear, or sealed again — is the
            // version it was, not a new write: it keeps that version's lineage (and
            // number), so a device that deleted that version knows it (`AcknowledgedDeletions`),
            // and a device that holds it takes it as the same version.
            let sequence = known.map { max($0, 1) }
            let stamped = try PushBody.stamping(body, lineage: parents, sequence: sequence, collection: collection, id: id)
            return StampedBody(body: stamped, lineageID: nil)
        }
        let lineageID = RecordLineage.newID()
        let lineage = RecordLineage.appending(lineageID, to: parents)
        let sequence = known.map { $0 + 1 }
        return StampedBody(
            body: try PushBody.stamping(body, lineage: lineage, sequence: sequence, collection: collection, id: id), lineageID: lineageID)
    }

    /// Renumbers a change in flight on an encrypted account when the version it was
    /// numbered against is no longer the newest this device knows: it was moved onto a
    /// newer server version (a merge, a version put back over a replay) whose number is at
    /// least its own. Sent as it was, it would be another version of that number, which
    /// every device refuses. Its content, lineage and revision stay, so it is still
    /// recognised if the server applied it (an echo is judged on content).
    /// - Returns: the renumbered body, or nil when the number still holds.
    public func renumberInFlight(_ entry: OutboxEntry) throws(StorageError) -> Data? {
        // NB: a version uploaded again as it was (no revision of its own) is never renumbered:
        // moved onto a newer version, it would pass an old content off as new.
        guard entry.isInFlight, entry.sentLineageID != nil, let body = entry.sentBody else { return nil }
        let fields: [String: JSONValue]
        do { fields = try WireJSON.fields(body) } catch { return nil }
        guard let sent = fields[VersionFields.sequence]?.intValue.map(Int64.init) else { return nil }
        let known = try knownSequence(of: entry)
        guard known >= sent else { return nil }
        var renumbered = fields
        renumbered[VersionFields.sequence] = .number(Double(known + 1))
        let data: Data
        do { data = try WireJSON.data(renumbered) } catch { return nil }
        try tx.replaceSentBody(entry.sequence, body: data)
        return data
    }

    /// The highest sequence number this device knows of an entry's record.
    func knownSequence(of entry: OutboxEntry) throws(StorageError) -> Int64 {
        let (collection, id) = (entry.collection, entry.recordID)
        return try knownSequence(
            of: id, in: collection, base: try tx.base(collection, id: id)?.json,
            row: try tx.record(collection, id: id, includingDeleted: true)?.json)
    }

    /// The highest sequence number this device knows of a record: its base's, its row's,
    /// its remembered sealed deletion's; 0 when it knows none.
    private func knownSequence(of id: String, in collection: CollectionName, base: Data?, row: Data?) throws(StorageError) -> Int64 {
        let numbers = [base, row].compactMap { json -> Int64? in
            guard let json, let fields = try? WireJSON.fields(json) else { return nil }
            return fields[VersionFields.sequence]?.intValue.map(Int64.init)
        }
        let removed = try tx.sealedDeletion(collection, id: id)?.sequence
        return (numbers + [removed ?? 0]).max() ?? 0
    }
}
