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

extension SyncRules {
    /// Records that the server has a pushed change: its answer, a 412 whose existing
    /// record is what was sent, or the change's echo in a pull.
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
        let (collection, id) = (pushed.collection, pushed.recordID)
        let current = try tx.outboxEntry(collection, id: id)
        if !server.isDeleted, let current, current.sequence == pushed.sequence, let base = try tx.base(collection, id: id) {
            try rememberWrite(pushed, server: server, base: base)
        }
        if !server.isDeleted {
            // NB: a version of the record is on the server again: nothing is missing there.
            try tx.forgetServerDeletion(collection, id: id)
        }
        if server.isDeleted, pushed.kind == .delete, let sequence = Self.sentSequence(of: pushed) {
            // NB: a sealed deletion (an encrypted account's): remembered, so that an older
            // version the server puts back is refused (`IntegrityGate`).
            try tx.rememberSealedDeletion(
                collection, id: id, SealedDeletion(sequence: sequence, revision: pushed.sentLineageID, lastModified: server.lastModified))
        }
        let deletedHere = try tx.record(collection, id: id, includingDeleted: true)?.isDeleted ?? true
        switch PushAcknowledgement.decide(pushed: pushed, current: current, deletedHere: deletedHere) {
        case .entryVanished:
            try followServerAfterVanishedEntry(pushed, server: server)
        case .settled:
            // NB: `current` is there: `decide` answers `.settled` only for an entry.
            guard let current else { return }
            try tx.removeOutbox(current.sequence)
            if server.isDeleted {
                try forgetRecordDeletedOnServer(collection, id: id)
            } else {
                try tx.removeBase(collection, id: id)
                try tx.writeRecord(collection, id: id, json: server.json, lastModified: server.lastModified, deleted: false)
            }
        case .changedSinceSent(let deletedHere):
            guard let current else { return }
            try rebaseChangedSinceSent(current, onto: server, deletedHere: deletedHere)
        }
    }

    /// The sequence number a change was sent with (an encrypted account's), when it has one.
    static func sentSequence(of entry: OutboxEntry) -> Int64? {
        guard let body = entry.sentBody, let fields = try? WireJSON.fields(body) else { return nil }
        return fields[VersionFields.sequence]?.intValue.map(Int64.init)
    }

    /// A change made after the pushed one was sent, moved onto the server's answer.
    private func rebaseChangedSinceSent(_ current: OutboxEntry, onto server: RawRecord, deletedHere: Bool) throws(StorageError) {
        let (collection, id) = (current.collection, current.recordID)
        try tx.clearSent(current.sequence)
        if server.isDeleted, deletedHere {
            try tx.removeOutbox(current.sequence)
            try forgetRecordDeletedOnServer(collection, id: id)
        } else if server.isDeleted {
            try tx.removeBase(collection, id: id)
            try tx.setLastModified(collection, id: id, nil)
            try tx.writeOutbox(collection, id: id, kind: .create, base: nil, waiting: current)
        } else {
            try tx.writeBase(BaseSnapshot(collection: collection, recordID: id, json: server.json, lastModified: server.lastModified))
            try tx.setLastModified(collection, id: id, server.lastModified)
            try tx.writeOutbox(collection, id: id, kind: deletedHere ? .delete : .update, base: server.lastModified, waiting: current)
        }
    }

    /// The server acknowledged deleting a record this store no longer wants: the
    /// deletion is remembered by its last version, and the row goes.
    private func forgetRecordDeletedOnServer(_ collection: CollectionName, id: String) throws(StorageError) {
        var lastVersion = try tx.base(collection, id: id)?.json
        if lastVersion == nil { lastVersion = try tx.record(collection, id: id, includingDeleted: true)?.json }
        try rememberDeletion(collection, id: id, lastVersion: lastVersion)
        try tx.removeRecord(collection, id: id)
    }

    /// The pushed entry went away another way (e.g. discarded).
    private func followServerAfterVanishedEntry(_ pushed: OutboxEntry, server: RawRecord) throws(StorageError) {
        let (collection, id) = (pushed.collection, pushed.recordID)
        guard !server.isDeleted else { return }  // deleted on both sides: nothing left to do
        if try tx.record(collection, id: id, includingDeleted: true) != nil {
            // The row follows the server.
            try tx.writeRecord(collection, id: id, json: server.json, lastModified: server.lastModified, deleted: false)
            return
        }
        // No row is left here (the reader gave the record up) while the server now has
        // it: its deletion is queued against what the server stored.
        try tx.writeRecord(collection, id: id, json: server.json, lastModified: server.lastModified, deleted: true)
        try tx.writeBase(BaseSnapshot(collection: collection, recordID: id, json: server.json, lastModified: server.lastModified))
        try tx.writeOutbox(collection, id: id, kind: .delete, base: server.lastModified, waiting: nil)
    }
}
