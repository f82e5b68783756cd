import Domain
import Foundation
import Records

// MARK: - Applying the server's changes

/// What `applyRemote` did with one pulled record.
public enum RemoteApplyOutcome: Hashable, Sendable {
    /// The record (or its deletion) is now the local state.
    case applied
    /// Not applied: the reader has a waiting change to this record, which must be
    /// merged (`rebasePendingChange`), turned into a conflict, or discarded first.
    case pendingLocalChange(OutboxEntry)
}

extension StoreTransaction {
    /// Stores a record (or applies a tombstone) pulled from the server, unless a local
    /// change to it is waiting — such a record is left alone and reported, never
    /// overwritten.
    public func applyRemote(_ remote: RawRecord, to collection: CollectionName) throws(StorageError) -> RemoteApplyOutcome {
        if let waiting = try outboxEntry(collection, id: remote.id) {
            return .pendingLocalChange(waiting)
        }
        if try deleteAgainIfStale(remote, in: collection) { return .applied }
        try store(remote, in: collection)
        return .applied
    }

    /// Applies a pulled page. - Returns: the records left alone because a local change
    /// to them is waiting, in page order.
    /// - Parameter morePagesFollow: the pull goes on with more pages. When the page is
    ///   large and the store holds fewer records than it brings (a first pull of a big
    ///   collection), the listing indexes are dropped for the rest of the pull and
    ///   built again, from all the records at once, with its last page (the page
    ///   applied with `morePagesFollow` false); see `ListingIndexes`. Results of every
    ///   query are the same with or without them. In a transaction that carries a
    ///   `BulkLoad`, the records' id index may be left out the same way (`IdentityIndex`).
    public func applyRemote(
        _ page: [RawRecord], to collection: CollectionName, morePagesFollow: Bool = false
    ) throws(StorageError) -> [(record: RawRecord, waiting: OutboxEntry)] {
        let stored = page.count >= Self.bulkPageMinimum ? try recordCountEstimate() : 0
        let large = morePagesFollow && page.count >= Self.bulkPageMinimum
        if large, stored < page.count {
            try ListingIndexes.drop(db)
        }
        // NB: one look at the outbox for the page: when nothing of this collection is
        // waiting (every first sync, most pulls), no record needs its own look-up.
        let anyWaiting = try hasWaitingChanges(in: collection)
        // The same for remembered deletions: usually none, and then no look-up per record.
        let anyDeletionRemembered = try hasAcknowledgedDeletions(in: collection)
        let plain = !anyWaiting && !anyDeletionRemembered
        if let bulkLoad, plain, !page.contains(where: \.isDeleted),
           try loadsInBulk(bulkLoad, collection, starting: large && stored < page.count) {
            try insertInBulk(page, into: collection, bulkLoad)
            if !morePagesFollow {
                try endBulkLoad()
                try ListingIndexes.create(db)
            }
            return []
        }
        try endBulkLoad()
        guard plain else {
            var held: [(record: RawRecord, waiting: OutboxEntry)] = []
            for remote in page {
                if anyWaiting, let waiting = try outboxEntry(collection, id: remote.id) {
                    held.append((remote, waiting))
                    continue
                }
                if anyDeletionRemembered, try deleteAgainIfStale(remote, in: collection) { continue }
                try store(remote, in: collection)
            }
            if !morePagesFollow {
                try ListingIndexes.create(db)
            }
            return held
        }
        if stored >= Self.keyOrderMinimum {
            for remote in Self.inKeyOrder(page) { try store(remote, in: collection) }
        } else {
            for remote in page { try store(remote, in: collection) }
        }
        if !morePagesFollow { try ListingIndexes.create(db) }
        return []
    }

    // MARK: Bulk loads

    /// Whether a page with no tombstone and no waiting change goes in without the id
    /// index: a load under way goes on while the index is still out (another writer may
    /// have built it); a new one starts with a large page that has more after it
    /// (`starting`), into a store that holds none of `collection`.
    private func loadsInBulk(_ load: BulkLoad, _ collection: CollectionName, starting: Bool) throws(StorageError) -> Bool {
        let indexPresent = try IdentityIndex.isPresent(db)
        if load.isLoading, !indexPresent { return true }
        load.stop()
        guard starting, indexPresent, try !holdsAnyRecord(of: collection) else { return false }
        try IdentityIndex.drop(db)
        load.start()
        return true
    }

    /// Inserts the page without upserting; from an id the load inserted already, the
    /// index is built and the rest of the page upserted (the later version wins, as it
    /// does in page order).
    private func insertInBulk(_ page: [RawRecord], into collection: CollectionName, _ load: BulkLoad) throws(StorageError) {
        for (offset, remote) in page.enumerated() {
            guard load.insert(remote.id) else {
                try endBulkLoad()
                for later in page[offset...] { try store(later, in: collection) }
                return
            }
            let indexing = try indexing(
                collection, id: remote.id, json: remote.json, requireID: false, scanned: remote.indexedFields)
            try insertRecord(
                collection, id: remote.id, json: remote.json, lastModified: remote.lastModified, indexing: indexing,
                operation: "load pulled \(collection.rawValue) record")
        }
    }

    /// Builds the id index if a bulk load left it out, which ends that load.
    func endBulkLoad() throws(StorageError) {
        if let bulkLoad, bulkLoad.isLoading { bulkLoad.stop() }
        try IdentityIndex.createIfMissing(db)
    }

    /// Whether the store has any row of `collection`, deleted or not.
    private func holdsAnyRecord(of collection: CollectionName) throws(StorageError) -> Bool {
        try db.queryFirst(
            "SELECT EXISTS (SELECT 1 FROM records WHERE collection = ?)", [.text(collection.rawValue)],
            operation: "look for stored \(collection.rawValue)"
        ) { $0.bool(0) } ?? false
    }

    /// Pages at least this large may be loaded without the listing indexes.
    static let bulkPageMinimum = 1000

    /// From this many records in the store, a large page is written in key order
    /// (`inKeyOrder`): about where the `(collection, id)` index (~57 bytes a record)
    /// stops fitting the 16 MiB page cache beside the table's own pages.
    static let keyOrderMinimum = 200_000

    /// A page's records in the order of the store's `(collection, id)` index.
    ///
    /// Kinto's ids are random, so in server order consecutive records land on leaves
    /// far apart. Once that index outgrows the page cache, a page in server order
    /// evicts leaves it comes back to later in the same transaction, and SQLite spills
    /// them to the WAL and reads them back; in key order each leaf is visited in one
    /// run (a million-record first sync: about a tenth less CPU). A store that small
    /// gains nothing from it, and the sort costs a little, so it is left to large ones.
    /// Records of one page have distinct ids, so nothing but their rowids depends on
    /// the order (an id given twice keeps its two versions' order).
    ///
    /// Sorted by each id's first eight UTF-8 bytes, then by the whole id: SQLite's
    /// BINARY order. Only positions are sorted, not the records.
    static func inKeyOrder(_ page: [RawRecord]) -> LazyMapSequence<[Int], RawRecord> {
        var keys = page.indices.map { index in (prefix: Self.sortPrefix(page[index].id), index: index) }
        keys.sort { left, right in
            if left.prefix != right.prefix { return left.prefix < right.prefix }
            let (leftID, rightID) = (page[left.index].id, page[right.index].id)
            // NB: a repeated id keeps its page order, so the later version wins.
            if leftID == rightID { return left.index < right.index }
            return leftID.utf8.lexicographicallyPrecedes(rightID.utf8)
        }
        return keys.map(\.index).lazy.map { page[$0] }
    }

    /// An id's first eight bytes as a big-endian number, zero-padded: comparing two of
    /// them compares the ids' first eight bytes.
    private static func sortPrefix(_ id: String) -> UInt64 {
        var prefix: UInt64 = 0
        var count = 0
        for byte in id.utf8 {
            guard count < 8 else { break }
            prefix = prefix << 8 | UInt64(byte)
            count += 1
        }
        return prefix << (8 * (8 - count))
    }

    private func store(_ remote: RawRecord, in collection: CollectionName) throws(StorageError) {
        if remote.isDeleted {
            try removeRecord(collection, id: remote.id)
        } else {
            let indexing = try indexing(
                collection, id: remote.id, json: remote.json, requireID: false, scanned: remote.indexedFields)
            try writeRecord(
                collection, id: remote.id, json: remote.json, lastModified: remote.lastModified, deleted: false,
                indexing: indexing, operation: "apply pulled \(collection.rawValue) record"
            )
        }
    }

    /// The records table's highest rowid: at least its row count, read in O(1).
    private func recordCountEstimate() throws(StorageError) -> Int {
        try db.queryFirst("SELECT coalesce(max(rowid), 0) FROM records", operation: "estimate the record count") { $0.int(0) } ?? 0
    }

    private func hasWaitingChanges(in collection: CollectionName) throws(StorageError) -> Bool {
        try db.queryFirst(
            "SELECT EXISTS (SELECT 1 FROM outbox WHERE collection = ?)", [.text(collection.rawValue)],
            operation: "look for waiting \(collection.rawValue) changes"
        ) { $0.bool(0) } ?? false
    }

    // MARK: - Pushes

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
        guard let current = try outboxEntry(entry.collection, id: entry.recordID), current.sequence == entry.sequence else {
            return nil
        }
        if current.isInFlight { return current }
        guard current.revision == entry.revision else { return nil }
        var stamped: Data?
        var lineageID: String?
        if let body {
            let base = try base(entry.collection, id: entry.recordID)?.json
            let row = try record(entry.collection, id: entry.recordID, includingDeleted: true)?.json
            let parents = RecordLineage.ids(in: base ?? row)
            if entry.kind == .create, let base, base == row, !parents.isEmpty {
                // NB: an unchanged record uploaded again after the server forgot it is
                // the version it was, not a new write: it keeps that version's lineage,
                // so a device that deleted that version knows it (`AcknowledgedDeletions`).
                stamped = try PushBody.stamping(body, lineage: parents, collection: entry.collection, id: entry.recordID)
            } else {
                let id = RecordLineage.newID()
                stamped = try PushBody.stamping(
                    body, lineage: RecordLineage.appending(id, to: parents), collection: entry.collection, id: entry.recordID)
                lineageID = id
            }
        }
        try db.run(
            "UPDATE outbox SET sent_revision = revision, sent_body = ?, sent_lineage_id = ? WHERE seq = ?",
            [.blob(stamped), .text(lineageID), .integer(current.sequence)], operation: "mark outbox entry sent"
        )
        var sent = current
        sent.sentRevision = current.revision
        sent.sentBody = stamped
        sent.sentLineageID = lineageID
        return sent
    }

    /// Records that the server has a pushed change: its answer, a 412 whose existing
    /// record is what was sent, or the change's echo in a pull.
    ///
    /// - When nothing changed locally since the change was sent, the server's version
    ///   becomes the local row and the entry and base snapshot are dropped.
    /// - When the reader changed the record after it was sent (the entry's revision
    ///   moved on, or a new entry replaced it), the newer local state stays queued, now
    ///   against the version the server just stored: the base snapshot becomes the
    ///   server's record and the change an `update` (or a `delete` when the reader
    ///   deleted the record). After a pushed deletion, a record the reader brought back
    ///   is queued as a `create`.
    /// - When the entry disappeared meanwhile (it was discarded), the local row follows
    ///   the server.
    /// - Parameters:
    ///   - pushed: the entry as it was sent.
    ///   - server: the server's answer: the stored record, or the tombstone of a delete.
    public func acknowledgePush(_ pushed: OutboxEntry, server: RawRecord) throws(StorageError) {
        let collection = pushed.collection
        let id = pushed.recordID
        guard let current = try outboxEntry(collection, id: id) else {
            try acknowledgeVanishedEntry(pushed, server: server)
            return
        }
        let serverHasRecord = !server.isDeleted
        if serverHasRecord, current.sequence == pushed.sequence, let base = try base(collection, id: id) {
            try rememberWrite(pushed, server: server, base: base)
        }
        let sentRevision = current.sequence == pushed.sequence ? (current.sentRevision ?? pushed.revision) : nil
        // NB: sequences are never reused (AUTOINCREMENT), so an entry with another
        // sequence is a new change made after the pushed one vanished.
        if current.revision == sentRevision {
            try removeOutbox(current.sequence)
            if serverHasRecord {
                try removeBase(collection, id: id)
                let indexing = try indexing(collection, id: id, json: server.json, requireID: false)
                try writeRecord(
                    collection, id: id, json: server.json, lastModified: server.lastModified, deleted: false,
                    indexing: indexing, operation: "store pushed \(collection.rawValue) record"
                )
            } else {
                try rememberDeletion(collection, id: id, lastVersion: try lastVersion(collection, id: id))
                try removeRecord(collection, id: id)
            }
            return
        }

        // Changed after sending: keep the newer local state, rebased on what the server now has.
        let deletedHere = try record(collection, id: id, includingDeleted: true)?.isDeleted ?? true
        try clearSent(current.sequence)
        guard serverHasRecord else {
            if deletedHere {
                try removeOutbox(current.sequence)
                try rememberDeletion(collection, id: id, lastVersion: try lastVersion(collection, id: id))
                try removeRecord(collection, id: id)
            } else {
                try removeBase(collection, id: id)
                try setRowLastModified(collection, id: id, nil)
                _ = try writeOutbox(collection, id: id, kind: .create, base: nil, waiting: current)
            }
            return
        }
        try writeBase(BaseSnapshot(collection: collection, recordID: id, json: server.json, lastModified: server.lastModified))
        try setRowLastModified(collection, id: id, server.lastModified)
        _ = try writeOutbox(collection, id: id, kind: deletedHere ? .delete : .update, base: server.lastModified, waiting: current)
    }

    /// The last version of a record the server had: its base snapshot, else the row.
    private func lastVersion(_ collection: CollectionName, id: String) throws(StorageError) -> Data? {
        if let base = try base(collection, id: id) { return base.json }
        return try record(collection, id: id, includingDeleted: true)?.json
    }

    private func acknowledgeVanishedEntry(_ pushed: OutboxEntry, server: RawRecord) throws(StorageError) {
        let collection = pushed.collection
        let id = pushed.recordID
        guard !server.isDeleted else { return }  // deleted on both sides: nothing left to do
        if try record(collection, id: id, includingDeleted: true) != nil {
            // The entry went away another way (e.g. discarded); the row follows the server.
            let indexing = try indexing(collection, id: id, json: server.json, requireID: false)
            try writeRecord(
                collection, id: id, json: server.json, lastModified: server.lastModified, deleted: false,
                indexing: indexing, operation: "store pushed \(collection.rawValue) record"
            )
            return
        }
        let indexing = try indexing(collection, id: id, json: server.json, requireID: false)
        try writeRecord(
            collection, id: id, json: server.json, lastModified: server.lastModified, deleted: true,
            indexing: indexing, operation: "queue deletion of pushed \(collection.rawValue) record"
        )
        try writeBase(BaseSnapshot(collection: collection, recordID: id, json: server.json, lastModified: server.lastModified))
        _ = try writeOutbox(collection, id: id, kind: .delete, base: server.lastModified, waiting: nil)
    }

    func setRowLastModified(_ collection: CollectionName, id: String, _ lastModified: Int64?) throws(StorageError) {
        try db.run(
            "UPDATE records SET last_modified = ? WHERE collection = ? AND id = ?",
            [.integer(lastModified), .text(collection.rawValue), .text(id)],
            operation: "update \(collection.rawValue) record timestamp"
        )
    }

    // MARK: - Merges

    /// Moves a waiting local change onto a newer server version, after the sync engine
    /// merged the two (a pulled record that changed under the edit, or a 412's
    /// `details.existing`).
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
        guard let waiting = try outboxEntry(collection, id: id) else {
            throw .notFound(what: "waiting change to \(collection.rawValue) record '\(id)'")
        }
        guard let row = try record(collection, id: id, includingDeleted: true) else {
            throw .notFound(what: "\(collection.rawValue) record '\(id)'")
        }
        let content = merged ?? row.json
        let indexing = try indexing(collection, id: id, json: content, requireID: false)

        // NB: an entry in flight keeps the kind it was sent with; the row says what the
        // reader did since.
        let deletedHere = merged == nil && row.isDeleted
        try clearSent(waiting.sequence)
        if remote.isDeleted {
            if deletedHere {
                try removeOutbox(waiting.sequence)
                try removeRecord(collection, id: id)
                return nil
            }
            // The server deleted what the reader changed: pushing it again re-creates it.
            try removeBase(collection, id: id)
            try writeRecord(collection, id: id, json: content, lastModified: nil, deleted: false, indexing: indexing,
                            operation: "rebase \(collection.rawValue) record")
            let entry = try writeOutbox(collection, id: id, kind: .create, base: nil, waiting: waiting)
            // NB: the tombstone's stamp is kept with the create, so that a pull reaching
            // back over it knows this version of the record (`serverStamps`).
            try db.run(
                "UPDATE outbox SET server_tombstone = ? WHERE seq = ?", [.integer(remote.lastModified), .integer(entry.sequence)],
                operation: "remember the server's deletion of a \(collection.rawValue) record")
            return entry
        }
        try writeBase(BaseSnapshot(collection: collection, recordID: id, json: remote.json, lastModified: remote.lastModified))
        try writeRecord(collection, id: id, json: content, lastModified: remote.lastModified,
                        deleted: deletedHere, indexing: indexing, operation: "rebase \(collection.rawValue) record")
        return try writeOutbox(collection, id: id, kind: deletedHere ? .delete : .update, base: remote.lastModified, waiting: waiting)
    }

    /// Drops a waiting local change and puts the record back as the server last had it
    /// (the base snapshot; a never-pushed creation disappears). For "server wins" and
    /// for resolving a conflict with the server's side; the caller then applies the
    /// server's current version with `applyRemote`.
    /// - Throws: `StorageError.notFound` when no change is waiting.
    public func discardLocalChange(_ collection: CollectionName, id: String) throws(StorageError) {
        guard let waiting = try outboxEntry(collection, id: id) else {
            throw .notFound(what: "waiting change to \(collection.rawValue) record '\(id)'")
        }
        try removeOutbox(waiting.sequence)
        guard waiting.kind != .create else {
            try removeRecord(collection, id: id)
            return
        }
        guard let base = try base(collection, id: id) else {
            throw .corruptValue(what: "base snapshot of \(collection.rawValue) record '\(id)'", reason: "missing for a waiting \(waiting.kind.rawValue)")
        }
        let indexing = try indexing(collection, id: id, json: base.json, requireID: false)
        try writeRecord(collection, id: id, json: base.json, lastModified: base.lastModified, deleted: false,
                        indexing: indexing, operation: "restore \(collection.rawValue) record")
        try removeBase(collection, id: id)
    }
}
