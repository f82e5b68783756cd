import Domain
import Foundation
import Records
import Storage

// MARK: - MergeApplier

/// Applies a three-way merge to the store, inside the caller's transaction: used when a
/// pulled record changed under a waiting local edit, and when a push got a 412. It reads
/// what the merge needs (`Read`), decides (`plan`, a value: `Plan`) and carries that out.
///
/// A change this device sent whose answer never came (in flight) is settled first: when
/// the server's record is exactly what was sent (or the tombstone of a deletion sent),
/// it is this device's own echo — an acknowledgement, not a remote change.
struct MergeApplier {
    let policy: ConflictPolicy
    let now: Date

    /// What happened, for events and the report.
    enum Result: Equatable {
        /// The server's record is the change this device sent: acknowledged, and any
        /// later local edit waits for the next push against it.
        case acknowledged
        /// The server's version is now the local one; the local change is gone because
        /// it was already there or the policy let the server win (`discarded` names
        /// what the policy dropped).
        case tookRemote(discarded: MergeConflict?)
        /// Local and server changes combined; the result waits in the outbox for a push.
        /// `discarded` names the local values the policy dropped (server wins).
        case merged(discarded: MergeConflict?)
        /// Stored as a conflict for `shelf resolve`; the local edit is kept, unpushed.
        case conflict(MergeConflict)
    }

    /// What the merge reads of the store.
    struct Read: Equatable {
        /// The waiting (or in flight) local change, if any.
        var waiting: OutboxEntry?
        /// The last server version the local change started from (the base snapshot).
        var base: Data?
        /// The local record's content; nil when there is no row or it is a deletion.
        var local: Data?
    }

    /// What the merge does, decided from the read and the server's record: nothing here
    /// writes (`MergePlanTests`, table-driven without a store).
    enum Plan: Equatable {
        /// The server's record is this device's change in flight: acknowledge it.
        case acknowledge(OutboxEntry, server: RawRecord)
        /// The server's version (or tombstone) becomes the local one; the waiting local
        /// change, if any, is dropped.
        case takeRemote(RawRecord, dropsLocalChange: Bool, discarded: MergeConflict?)
        /// The waiting change is rebased onto the server's version with the merged
        /// content (nil: a deletion) and waits for the next push.
        case rebase(onto: RawRecord, merged: Data?, discarded: MergeConflict?)
        /// Both changed the same field and the policy does not decide: stored for
        /// `shelf resolve`, the local edit kept unpushed.
        case recordConflict(Conflict, MergeConflict)
    }

    /// Reads, plans and carries out the merge of `id` with the server's `remote`.
    /// - Parameters:
    ///   - remote: the server's current record, or its tombstone; nil when the server
    ///     says only that the record is gone.
    func apply(
        _ collection: CollectionName, id: String, remote: RawRecord?, in tx: StoreTransaction
    ) throws -> Result {
        let localRow = try tx.record(collection, id: id, includingDeleted: true)
        let read = Read(
            waiting: try tx.outboxEntry(collection, id: id), base: try tx.base(collection, id: id)?.json,
            local: localRow?.isDeleted == false ? localRow?.json : nil)
        return try carryOut(plan(collection, id: id, remote: remote, read: read), in: collection, id: id, tx)
    }

    /// The decision, without the store.
    func plan(_ collection: CollectionName, id: String, remote: RawRecord?, read: Read) throws -> Plan {
        let waiting = read.waiting
        if let waiting, try Self.isEcho(of: waiting, remote) {
            return .acknowledge(waiting, server: remote ?? Self.tombstone(id, waiting))
        }
        let remoteData = (remote?.isDeleted ?? true) ? nil : remote?.json
        let versions = try Self.versions(waiting, base: read.base, remote: remoteData)
        let outcome = ThreeWayMerge.merge(
            base: versions.base, sent: versions.sent, local: try RecordJSON.fields(read.local),
            remote: try RecordJSON.fields(remoteData), policy: policy)
        let tombstone = remote ?? Self.tombstone(id, waiting)

        switch outcome {
        case .alreadyEqual, .acceptRemote:
            let discarded = waiting == nil ? nil : try dropped(versions, local: read.local, remote: remoteData)
            return .takeRemote(tombstone, dropsLocalChange: waiting != nil, discarded: discarded)
        case .push(let content):
            let discarded = try dropped(versions, local: read.local, remote: remoteData)
            return .rebase(onto: tombstone, merged: try content.map { try RecordJSON.data($0, id: id) }, discarded: discarded)
        case .conflict(let clash):
            let conflict = Conflict(
                collection: collection, recordID: id, base: read.base, local: read.local, remote: remoteData,
                remoteLastModified: remote.map(\.lastModified), detectedAt: now)
            return .recordConflict(conflict, clash)
        }
    }

    /// Writes what `plan` decided, in `tx`.
    func carryOut(_ plan: Plan, in collection: CollectionName, id: String, _ tx: StoreTransaction) throws -> Result {
        let rules = SyncRules(tx)
        switch plan {
        case .acknowledge(let waiting, let server):
            try rules.acknowledgePush(waiting, server: server)
            _ = try tx.removeConflict(collection, id: id)
            return .acknowledged
        case .takeRemote(let remote, let dropsLocalChange, let discarded):
            if dropsLocalChange { try rules.discardLocalChange(collection, id: id) }
            _ = try tx.removeConflict(collection, id: id)
            _ = try rules.applyPulled(remote, to: collection)
            return .tookRemote(discarded: discarded)
        case .rebase(let onto, let merged, let discarded):
            try rules.rebasePendingChange(collection, id: id, onto: onto, merged: merged)
            _ = try tx.removeConflict(collection, id: id)
            return .merged(discarded: discarded)
        case .recordConflict(let conflict, let clash):
            try tx.recordConflict(conflict)
            return .conflict(clash)
        }
    }

    // MARK: In flight

    /// Whether the server's record is this device's change in flight, as sent.
    static func isEcho(of entry: OutboxEntry, _ remote: RawRecord?) throws -> Bool {
        guard entry.isInFlight else { return false }
        if entry.kind == .delete { return remote?.isDeleted ?? true }
        guard let remote, !remote.isDeleted, let sent = entry.sentBody else { return false }
        return try ThreeWayMerge.sameContent(RecordJSON.fields(remote.json), RecordJSON.fields(sent))
    }

    /// The versions a merge starts from. A create in flight of a new record that meets a
    /// record with its id was applied (ids are random), so what was sent is the common
    /// base. So is a change in flight whose revision id the server's record lists in its
    /// lineage (`RecordLineage`): it was applied, and the server's record descends from
    /// it — another device changed it knowingly. Any other change in flight may or may
    /// not have been applied, so both count as bases — among them a create that uploads
    /// again a record the server forgot (it has a base snapshot): other devices know its
    /// id and upload it too, so the record it meets may be theirs, and taking what was
    /// sent as the base would let their older values overwrite a waiting edit.
    /// - Parameter remote: the server's record (nil: none, or a tombstone).
    static func versions(
        _ entry: OutboxEntry?, base: Data?, remote: Data?
    ) throws -> (base: [String: JSONValue]?, sent: [String: JSONValue]?) {
        guard let entry, entry.isInFlight, let sent = entry.sentBody else { return (try RecordJSON.fields(base), nil) }
        if entry.kind == .create, base == nil { return (try RecordJSON.fields(sent), nil) }
        if let revision = entry.sentLineageID, RecordLineage.descends(try RecordJSON.fields(remote), from: revision) {
            return (try RecordJSON.fields(sent), nil)
        }
        return (try RecordJSON.fields(base), try RecordJSON.fields(sent))
    }

    private static func tombstone(_ id: String, _ entry: OutboxEntry?) -> RawRecord {
        RawRecord(id: id, lastModified: entry?.baseLastModified ?? 0, isDeleted: true, json: Data("{}".utf8))
    }

    // MARK: Discarded local work

    /// What a policy that is not `manual` dropped of the local side: the clash a manual
    /// merge would have stopped at, or nil when nothing local was lost.
    private func dropped(
        _ versions: (base: [String: JSONValue]?, sent: [String: JSONValue]?), local: Data?, remote: Data?
    ) throws -> MergeConflict? {
        guard policy == .serverWins else { return nil }
        let manual = ThreeWayMerge.merge(
            base: versions.base, sent: versions.sent, local: try RecordJSON.fields(local),
            remote: try RecordJSON.fields(remote), policy: .manual)
        if case .conflict(let clash) = manual { return clash }
        return nil
    }
}
