import Domain
import Foundation
import Records
import Storage

// MARK: - The plan

/// What the store holds for a change about to go out: all that marking it sent decides on,
/// read before it decides.
struct SendingRead: Equatable {
    /// The record's outbox entry now.
    var current: OutboxEntry?
    /// The base snapshot's JSON and the row's (hidden ones included).
    var base: Data?
    var row: Data?
    /// The sequence of the record's remembered sealed deletion, if any.
    var sealedDeletionSequence: Int64?

    /// The highest sequence number this device knows of the record: its base's, its
    /// row's, its remembered sealed deletion's; 0 when it knows none.
    var knownSequence: Int64 {
        let numbers = [base, row].compactMap { json -> Int64? in
            guard let json, let fields = try? WireJSON.fields(json) else { return nil }
            return fields[VersionFields.sequence]?.intValue.map(Int64.init)
        }
        return (numbers + [sealedDeletionSequence ?? 0]).max() ?? 0
    }
}

/// Whether and how a change is marked sent, decided as a value from the entry as read,
/// its body and `SendingRead`, with no store (`SendingPlanTests`); `SyncRules.markSent`
/// reads, plans and carries out.
enum SendingPlan: Equatable {
    /// The reader changed the entry (or it went away) since it was read: the body no
    /// longer says what is here, so it is not sent; the next batch reads it again.
    case notSent
    /// Already in flight: it goes again exactly as it went.
    case alreadyInFlight(OutboxEntry)
    /// Marked sent with this body (nil: a deletion with none, a Kinto tombstone) and the
    /// revision id the write adds (nil: an unchanged version uploaded again).
    case markSent(OutboxEntry, body: Data?, lineageID: String?)

    /// - Parameters:
    ///   - body: the body of a `create` or `update`; nil for a `delete`.
    ///   - numbered: the account is encrypted and numbers its versions.
    ///   - newLineageID: the revision id a new write gets (`RecordLineage.newID()`).
    /// - Throws: `StorageError.invalidRecord` for a body that is no JSON object.
    static func plan(
        _ entry: OutboxEntry, body: Data?, numbered: Bool, read: SendingRead, newLineageID: @autoclosure () -> String
    ) throws(StorageError) -> SendingPlan {
        guard let current = read.current, current.sequence == entry.sequence else { return .notSent }
        if current.isInFlight { return .alreadyInFlight(current) }
        guard isUnchanged(entry, now: current) else { return .notSent }
        let known = numbered ? read.knownSequence : nil
        // NB: the deletion of a record never sealed (its number unknown: renamed by `enable`,
        // or from before encryption) goes as a Kinto tombstone, so its id leaves the server's
        // live records; a device that saw it sealed never meets one (`IntegrityGate`).
        let sealedDeletion = entry.kind == .delete && (known ?? 0) > 0
        let content = body ?? (sealedDeletion ? Data("{}".utf8) : nil)
        var stampedBody: Data?
        var lineageID: String?
        if let content {
            let (collection, id) = (entry.collection, entry.recordID)
            let parents = RecordLineage.ids(in: read.base ?? read.row)
            if entry.kind != .delete, let base = read.base, base == read.row, entry.kind == .update || !parents.isEmpty {
                // NB: an unchanged record uploaded again — after the server forgot it, over a
                // version the server put back or wrote in the clear, or sealed again — is the
                // version it was, not a new write: it keeps that version's lineage (and
                // number), so a device that deleted that version knows it (`AcknowledgedDeletions`),
                // and a device that holds it takes it as the same version.
                stampedBody = try PushBody.stamping(
                    content, lineage: parents, sequence: known.map { max($0, 1) }, collection: collection, id: id)
            } else {
                let newID = newLineageID()
                lineageID = newID
                stampedBody = try PushBody.stamping(
                    content, lineage: RecordLineage.appending(newID, to: parents), sequence: known.map { $0 + 1 },
                    collection: collection, id: id)
            }
        }
        var sent = current
        sent.sentRevision = current.revision
        sent.sentBody = stampedBody
        sent.sentLineageID = lineageID
        return .markSent(sent, body: stampedBody, lineageID: lineageID)
    }

    /// Whether `current` is still the entry as it was read and not yet sent: the one case
    /// in which it is marked with a new body (and so the only one whose rows are read).
    static func isUnchanged(_ entry: OutboxEntry, now current: OutboxEntry) -> Bool {
        current.sequence == entry.sequence && !current.isInFlight && current.revision == entry.revision
    }
}

// MARK: - A change goes out

extension SyncRules {
    /// Marks an entry as sent, with the exact body that goes out (built from `entry` as
    /// read), before the request leaves: from then on it is in flight
    /// (`OutboxEntry.sentRevision`) and repeated as it was until acknowledged. Marking
    /// an entry already in flight changes nothing. Reads, plans (`SendingPlan`) and
    /// carries the plan out.
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
        let read = try sendingRead(entry, stamping: body != nil || numbered, numbered: numbered)
        switch try SendingPlan.plan(entry, body: body, numbered: numbered, read: read, newLineageID: RecordLineage.newID()) {
        case .notSent:
            return nil
        case .alreadyInFlight(let current):
            return current
        case .markSent(let sent, let body, let lineageID):
            try tx.markSent(sent.sequence, body: body, lineageID: lineageID)
            return sent
        }
    }

    /// The look-ups marking `entry` sent decides on. The rows are read only for an entry
    /// that can be marked (the usual case: every change of a push) and gets a body or a
    /// number (`stamping`): a plaintext deletion has neither, so nothing of its record is read.
    private func sendingRead(_ entry: OutboxEntry, stamping: Bool, numbered: Bool) throws(StorageError) -> SendingRead {
        let (collection, id) = (entry.collection, entry.recordID)
        let current = try tx.outboxEntry(collection, id: id)
        guard let current, stamping, SendingPlan.isUnchanged(entry, now: current) else { return SendingRead(current: current) }
        return SendingRead(
            current: current,
            base: try tx.base(collection, id: id)?.json,
            row: try tx.record(collection, id: id, includingDeleted: true)?.json,
            sealedDeletionSequence: numbered ? try tx.sealedDeletion(collection, id: id)?.sequence : nil)
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

    /// The highest sequence number this device knows of an entry's record (`SendingRead.knownSequence`).
    func knownSequence(of entry: OutboxEntry) throws(StorageError) -> Int64 {
        let (collection, id) = (entry.collection, entry.recordID)
        return SendingRead(
            current: nil, base: try tx.base(collection, id: id)?.json,
            row: try tx.record(collection, id: id, includingDeleted: true)?.json,
            sealedDeletionSequence: try tx.sealedDeletion(collection, id: id)?.sequence
        ).knownSequence
    }
}
