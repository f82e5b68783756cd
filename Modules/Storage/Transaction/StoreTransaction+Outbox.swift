import Domain
import Foundation
import Records

// MARK: - Outbox writes

extension StoreTransaction {
    /// Inserts a new outbox entry, or folds the change into the waiting one (keeping its
    /// position and first-change time, bumping its revision).
    @discardableResult
    public func writeOutbox(
        _ collection: CollectionName, id: String, kind: OutboxEntry.Kind, base: Int64?, waiting: OutboxEntry?
    ) throws(StorageError) -> OutboxEntry {
        let now = clock.now()
        if let waiting {
            // NB: a change moved onto another version no longer stands over a tombstone,
            // unless it is a create (`OutboxEntry.serverTombstone`).
            try db.run(
                """
                UPDATE outbox SET kind = ?1, base_last_modified = ?2, updated_at = ?3, revision = revision + 1,
                    server_tombstone = CASE WHEN ?1 = 'create' THEN server_tombstone END
                WHERE seq = ?4
                """,
                [.text(kind.rawValue), .integer(base), .date(now), .integer(waiting.sequence)],
                operation: "update outbox entry"
            )
            var entry = waiting
            entry.kind = kind
            entry.baseLastModified = base
            if kind != .create { entry.serverTombstone = nil }
            entry.updatedAt = Date(milliseconds: now.milliseconds)
            entry.revision += 1
            return entry
        }
        try db.run(
            """
            INSERT INTO outbox (collection, record_id, kind, base_last_modified, created_at, updated_at, revision)
            VALUES (?, ?, ?, ?, ?, ?, 1)
            """,
            [.text(collection.rawValue), .text(id), .text(kind.rawValue), .integer(base), .date(now), .date(now)],
            operation: "append outbox entry"
        )
        let stamped = Date(milliseconds: now.milliseconds)
        return OutboxEntry(
            sequence: try db.lastInsertRowID, collection: collection, recordID: id, kind: kind,
            baseLastModified: base, createdAt: stamped, updatedAt: stamped, revision: 1
        )
    }

    /// Forgets that an entry was sent: its next push is built from the record again.
    /// Only once the server's state is known (acknowledged, or merged onto the server's
    /// current version, which the next push names in `If-Match`).
    public func clearSent(_ sequence: Int64) throws(StorageError) {
        try db.run(
            "UPDATE outbox SET sent_revision = NULL, sent_body = NULL, sent_lineage_id = NULL WHERE seq = ?", [.integer(sequence)],
            operation: "clear sent outbox entry"
        )
    }

    public func removeOutbox(_ sequence: Int64) throws(StorageError) {
        try db.run("DELETE FROM outbox WHERE seq = ?", [.integer(sequence)], operation: "remove outbox entry")
    }

    /// Records that an entry's current revision goes out with `body` (and the lineage
    /// id that body carries): from then on it is in flight (`OutboxEntry.sentRevision`).
    public func markSent(_ sequence: Int64, body: Data?, lineageID: String?) throws(StorageError) {
        try db.run(
            "UPDATE outbox SET sent_revision = revision, sent_body = ?, sent_lineage_id = ? WHERE seq = ?",
            [.blob(body), .text(lineageID), .integer(sequence)], operation: "mark outbox entry sent"
        )
    }

    /// Keeps with a waiting create the stamp of the server's tombstone it was rebased
    /// over (`StoreReader.serverStamps`).
    public func setServerTombstone(_ sequence: Int64, stamp: Int64) throws(StorageError) {
        try db.run(
            "UPDATE outbox SET server_tombstone = ? WHERE seq = ?", [.integer(stamp), .integer(sequence)],
            operation: "remember the server's deletion of a record")
    }

    /// Renumbers the body of a change in flight (`_shelf_seq`), keeping its content,
    /// lineage and revision: the version it will be is no longer one more than the newest
    /// the server holds (`SyncRules.renumberInFlight`).
    public func replaceSentBody(_ sequence: Int64, body: Data) throws(StorageError) {
        try db.run(
            "UPDATE outbox SET sent_body = ? WHERE seq = ?", [.blob(body), .integer(sequence)],
            operation: "renumber a change in flight")
    }

    /// Moves a waiting entry's `If-Match` base, keeping its content and revision.
    public func setBase(_ sequence: Int64, base: Int64?) throws(StorageError) {
        try db.run(
            "UPDATE outbox SET base_last_modified = ? WHERE seq = ?", [.integer(base), .integer(sequence)],
            operation: "move the base of a waiting change")
    }
}
