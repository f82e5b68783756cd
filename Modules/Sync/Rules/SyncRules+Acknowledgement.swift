import Domain
import Foundation
import Records
import Storage

// MARK: - The server has a pushed change

/// What a pushed change's acknowledgement does, decided from the entry as it was sent
/// and as it is now (`PushAcknowledgement.decide`).
enum PushAcknowledgement: Equatable {
    /// The entry went away meanwhile (it was discarded): the local row follows the server.
    case entryVanished
    /// Nothing changed locally since it was sent: the server's version is the local state.
    case settled
    /// The reader changed the record after it was sent (the entry's revision moved on,
    /// or a new entry replaced it): the newer local state stays queued, rebased on what
    /// the server now has.
    case changedSinceSent(deletedHere: Bool)

    /// - Parameters:
    ///   - pushed: the entry as it was sent.
    ///   - current: the record's entry now, if any.
    ///   - deletedHere: whether the reader has deleted the record (no row, or a hidden one).
    static func decide(pushed: OutboxEntry, current: OutboxEntry?, deletedHere: Bool) -> Self {
        guard let current else { return .entryVanished }
        // NB: sequences are never reused (AUTOINCREMENT), so an entry with another
        // sequence is a new change made after the pushed one vanished.
        let sentRevision = current.sequence == pushed.sequence ? (current.sentRevision ?? pushed.revision) : nil
        return current.revision == sentRevision ? .settled : .changedSinceSent(deletedHere: deletedHere)
    }
}

// MARK: - The plan

/// What the store holds for a pushed change's record when the server's acknowledgement
/// arrives: all an acknowledgement decides on, read before it decides.
struct AcknowledgementRead: Equatable {
    /// The record's outbox entry now (the pushed one, a newer one, or none).
    var current: OutboxEntry?
    /// The record's base snapshot, when it has one.
    var base: BaseSnapshot?
    /// The local row, hidden ones included.
    var row: StoredRecord?

    /// Whether the reader has deleted the record (no row, or a hidden one).
    var deletedHere: Bool { row?.isDeleted ?? true }
}

/// What a pushed change's acknowledgement does to the store, decided as a value from the
/// change as sent, the server's answer and `AcknowledgementRead`, with no store
/// (`AcknowledgementPlanTests`); `SyncRules.acknowledgePush` reads, plans and carries out.
struct AcknowledgementPlan: Equatable {
    /// One write to the record's rows, in order.
    enum Step: Equatable {
        /// Remember the acknowledged write with its base (`SyncRules.rememberWrite`).
        case rememberWrite(BaseSnapshot)
        /// A version is on the server again: nothing is missing there.
        case forgetServerDeletion
        /// An encrypted account's sealed deletion, remembered so that an older version put
        /// back is refused (`IntegrityGate`).
        case rememberSealedDeletion(SealedDeletion)
        case removeOutbox(sequence: Int64)
        /// The newer change stays queued but is no longer the one in flight.
        case clearSent(sequence: Int64)
        /// Remember the server's deletion by the record's last version (`SyncRules.rememberDeletion`).
        case rememberDeletion(lastVersion: Data?)
        case removeRecord
        case removeBase
        case writeRecord(json: Data, lastModified: Int64, deleted: Bool)
        case writeBase(json: Data, lastModified: Int64)
        case setLastModified(Int64?)
        /// Queue a change against `base`, taking over `waiting`'s place when there is one.
        case queue(OutboxEntry.Kind, base: Int64?, waiting: OutboxEntry?)
    }

    var steps: [Step]

    /// - Parameters:
    ///   - pushed: the entry as it was sent.
    ///   - server: the server's answer: the stored record, or the tombstone of a delete.
    ///   - sentSequence: the sequence number the change was sent with (an encrypted
    ///     account's, `SyncRules.sentSequence(of:)`).
    static func plan(pushed: OutboxEntry, server: RawRecord, read: AcknowledgementRead, sentSequence: Int64?) -> Self {
        var steps: [Step] = []
        let current = read.current
        // NB: only a write that carried a lineage id can be recognised later as overwritten:
        // an update, or a create sent against a version (a record the server lost or
        // deleted without the reader, edited here: `SyncRules.requeue` keeps its base).
        if !server.isDeleted, pushed.kind != .delete, pushed.sentLineageID != nil,
           let current, current.sequence == pushed.sequence, let base = read.base {
            steps.append(.rememberWrite(base))
        }
        if !server.isDeleted { steps.append(.forgetServerDeletion) }
        if server.isDeleted, pushed.kind == .delete, let sentSequence {
            steps.append(.rememberSealedDeletion(
                SealedDeletion(sequence: sentSequence, revision: pushed.sentLineageID, lastModified: server.lastModified)))
        }
        // NB: what a deletion the server acknowledged is remembered by, and the row goes.
        let forgetDeletedRecord: [Step] = [.rememberDeletion(lastVersion: read.base?.json ?? read.row?.json), .removeRecord]
        let decision = PushAcknowledgement.decide(pushed: pushed, current: current, deletedHere: read.deletedHere)
        switch (decision, current) {
        case (.entryVanished, _):
            if server.isDeleted {
                break  // deleted on both sides: nothing left to do
            } else if read.row != nil {
                // The row follows the server.
                steps.append(.writeRecord(json: server.json, lastModified: server.lastModified, deleted: false))
            } else {
                // No row is left here (the reader gave the record up) while the server now
                // has it: its deletion is queued against what the server stored.
                steps += [
                    .writeRecord(json: server.json, lastModified: server.lastModified, deleted: true),
                    .writeBase(json: server.json, lastModified: server.lastModified),
                    .queue(.delete, base: server.lastModified, waiting: nil),
                ]
            }
        case (.settled, let current?):
            steps.append(.removeOutbox(sequence: current.sequence))
            if server.isDeleted {
                steps += forgetDeletedRecord
            } else {
                steps += [.removeBase, .writeRecord(json: server.json, lastModified: server.lastModified, deleted: false)]
            }
        case (.changedSinceSent(let deletedHere), let current?):
            // The newer local state moves onto the server's answer.
            steps.append(.clearSent(sequence: current.sequence))
            if server.isDeleted, deletedHere {
                steps.append(.removeOutbox(sequence: current.sequence))
                steps += forgetDeletedRecord
            } else if server.isDeleted {
                // NB: after a pushed deletion, a record the reader brought back goes up as a create.
                steps += [.removeBase, .setLastModified(nil), .queue(.create, base: nil, waiting: current)]
            } else {
                steps += [
                    .writeBase(json: server.json, lastModified: server.lastModified),
                    .setLastModified(server.lastModified),
                    .queue(deletedHere ? .delete : .update, base: server.lastModified, waiting: current),
                ]
            }
        case (.settled, nil), (.changedSinceSent, nil):
            break  // NB: not reached: `decide` answers these only for an entry.
        }
        return AcknowledgementPlan(steps: steps)
    }
}

// MARK: - Carrying it out

extension SyncRules {
    /// Records that the server has a pushed change: its answer, a 412 whose existing
    /// record is what was sent, or the change's echo in a pull. Reads, plans
    /// (`AcknowledgementPlan`) and carries the plan out:
    ///
    /// - Settled (nothing changed since it was sent): the server's version becomes the
    ///   local row and the entry and base snapshot are dropped; a deletion is remembered
    ///   (`rememberDeletion`).
    /// - Changed since sent: the newer local state stays queued against the version the
    ///   server just stored — its base snapshot, and an `update` (or a `delete` when
    ///   the reader deleted the record). After a pushed deletion, a record the reader
    ///   brought back is queued as a `create`.
    /// - Entry vanished: the local row follows the server.
    /// - Parameters:
    ///   - pushed: the entry as it was sent.
    ///   - server: the server's answer: the stored record, or the tombstone of a delete.
    public func acknowledgePush(_ pushed: OutboxEntry, server: RawRecord) throws(StorageError) {
        let read = try acknowledgementRead(pushed.collection, id: pushed.recordID)
        let plan = AcknowledgementPlan.plan(pushed: pushed, server: server, read: read, sentSequence: Self.sentSequence(of: pushed))
        try carryOut(plan, for: pushed, server: server)
    }

    /// The look-ups an acknowledgement of `id` decides on.
    func acknowledgementRead(_ collection: CollectionName, id: String) throws(StorageError) -> AcknowledgementRead {
        AcknowledgementRead(
            current: try tx.outboxEntry(collection, id: id),
            base: try tx.base(collection, id: id),
            row: try tx.record(collection, id: id, includingDeleted: true))
    }

    /// The sequence number a change was sent with (an encrypted account's), when it has one.
    static func sentSequence(of entry: OutboxEntry) -> Int64? {
        guard let body = entry.sentBody, let fields = try? WireJSON.fields(body) else { return nil }
        return fields[VersionFields.sequence]?.intValue.map(Int64.init)
    }

    /// Writes an acknowledgement's plan, step by step, with no decision left to make.
    private func carryOut(_ plan: AcknowledgementPlan, for pushed: OutboxEntry, server: RawRecord) throws(StorageError) {
        let (collection, id) = (pushed.collection, pushed.recordID)
        for step in plan.steps {
            switch step {
            case .rememberWrite(let base):
                try rememberWrite(pushed, server: server, base: base)
            case .forgetServerDeletion:
                try tx.forgetServerDeletion(collection, id: id)
            case .rememberSealedDeletion(let deletion):
                try tx.rememberSealedDeletion(collection, id: id, deletion)
            case .removeOutbox(let sequence):
                try tx.removeOutbox(sequence)
            case .clearSent(let sequence):
                try tx.clearSent(sequence)
            case .rememberDeletion(let lastVersion):
                try rememberDeletion(collection, id: id, lastVersion: lastVersion)
            case .removeRecord:
                try tx.removeRecord(collection, id: id)
            case .removeBase:
                try tx.removeBase(collection, id: id)
            case .writeRecord(let json, let lastModified, let deleted):
                try tx.writeRecord(collection, id: id, json: json, lastModified: lastModified, deleted: deleted)
            case .writeBase(let json, let lastModified):
                try tx.writeBase(BaseSnapshot(collection: collection, recordID: id, json: json, lastModified: lastModified))
            case .setLastModified(let lastModified):
                try tx.setLastModified(collection, id: id, lastModified)
            case .queue(let kind, let base, let waiting):
                try tx.writeOutbox(collection, id: id, kind: kind, base: base, waiting: waiting)
            }
        }
    }
}
