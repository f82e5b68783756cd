import Domain
import Foundation

// MARK: - Sync state

extension StoreTransaction {
    /// Replaces a collection's sync state.
    public func setSyncState(_ state: SyncState) throws(StorageError) {
        try db.run(
            """
            INSERT OR REPLACE INTO sync_state
                (collection, cursor, etag, backoff_until, last_success, last_error, last_error_at, next_page,
                 collection_timestamp, recovering, cursor_before_recovery, pushed_timestamp,
                 settled, server_clock, server_clock_at, last_reconciled,
                 reconciled_through, reconciling_from, swept_through)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(state.collection.rawValue), .integer(state.cursor), .text(state.etag), .date(state.backoffUntil),
                .date(state.lastSuccess), .text(state.lastError), .date(state.lastErrorAt), .text(state.nextPage),
                .integer(state.collectionTimestamp), .bool(state.recovering), .integer(state.cursorBeforeRecovery),
                .integer(state.pushedTimestamp), .integer(state.settled), .integer(state.serverClock?.timestamp),
                .date(state.serverClock?.seenAt), .date(state.lastReconciled),
                .integer(state.reconciledThrough), .integer(state.reconcilingFrom), .integer(state.sweptThrough),
            ],
            operation: "write \(state.collection.rawValue) sync state"
        )
    }

    /// Reads, changes and writes back a collection's sync state.
    @discardableResult
    public func updateSyncState(_ collection: CollectionName, _ change: (inout SyncState) -> Void) throws(StorageError) -> SyncState {
        var state = try syncState(collection)
        change(&state)
        state.collection = collection
        try setSyncState(state)
        return state
    }
}

// MARK: - Conflicts

extension StoreTransaction {
    /// Keeps a conflict for the reader, replacing an earlier one for the same record.
    public func recordConflict(_ conflict: Conflict) throws(StorageError) {
        try db.run(
            """
            INSERT OR REPLACE INTO conflicts
                (collection, record_id, base, local, remote, remote_last_modified, detected_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(conflict.collection.rawValue), .text(conflict.recordID), .blob(conflict.base),
                .blob(conflict.local), .blob(conflict.remote), .integer(conflict.remoteLastModified),
                .date(conflict.detectedAt),
            ],
            operation: "record conflict"
        )
    }

    /// - Returns: whether there was such a conflict.
    @discardableResult
    public func removeConflict(_ collection: CollectionName, id: String) throws(StorageError) -> Bool {
        try db.run(
            "DELETE FROM conflicts WHERE collection = ? AND record_id = ?",
            [.text(collection.rawValue), .text(id)], operation: "remove conflict"
        ) > 0
    }
}

// MARK: - Dead letters

extension StoreTransaction {
    /// Keeps a change the server refused for good, with the record's content as it is
    /// now; what else parking it does is the sync engine's rule
    /// (`SyncRules.moveToDeadLetters`). `requeueDeadLetter` applies it again.
    /// - Parameters:
    ///   - status: the HTTP status of the refusal; `reason`: the server's message.
    public func addDeadLetter(_ entry: OutboxEntry, status: Int, reason: String) throws(StorageError) -> DeadLetter {
        let collection = entry.collection
        let id = entry.recordID
        guard let current = try outboxEntry(collection, id: id) else {
            throw .notFound(what: "waiting change to \(collection.rawValue) record '\(id)'")
        }
        guard let row = try record(collection, id: id, includingDeleted: true) else {
            throw .notFound(what: "\(collection.rawValue) record '\(id)'")
        }
        let now = clock.now()
        try db.run(
            """
            INSERT INTO dead_letters
                (collection, record_id, kind, base_last_modified, json, status, reason, queued_at, failed_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(collection.rawValue), .text(id), .text(current.kind.rawValue), .integer(current.baseLastModified),
                .blob(row.json), .integer(Int64(status)), .text(reason), .date(current.createdAt), .date(now),
            ],
            operation: "add dead letter"
        )
        return DeadLetter(
            id: try db.lastInsertRowID, collection: collection, recordID: id, kind: current.kind,
            baseLastModified: current.baseLastModified, json: row.json, status: status, reason: reason,
            queuedAt: current.createdAt, failedAt: Date(milliseconds: now.milliseconds)
        )
    }

    /// Applies a refused change again as a new local edit (against the record as the
    /// store has it now) and removes the dead letter.
    /// - Returns: the new outbox entry; nil for a deletion of a record that is gone.
    /// - Throws: `StorageError.notFound` when there is no such dead letter.
    @discardableResult
    public func requeueDeadLetter(id: Int64) throws(StorageError) -> OutboxEntry? {
        guard let letter = try deadLetter(id: id) else { throw .notFound(what: "dead letter \(id)") }
        try removeDeadLetter(id: id)
        switch letter.kind {
        case .create, .update:
            return try saveLocal(letter.collection, id: letter.recordID, json: letter.json)
        case .delete:
            guard try record(letter.collection, id: letter.recordID) != nil else { return nil }
            return try deleteLocal(letter.collection, id: letter.recordID)
        }
    }

    /// Forgets a refused change (`shelf discard`): the record already shows the
    /// server's version. - Returns: whether there was such a dead letter.
    @discardableResult
    public func removeDeadLetter(id: Int64) throws(StorageError) -> Bool {
        try db.run("DELETE FROM dead_letters WHERE id = ?", [.integer(id)], operation: "remove dead letter") > 0
    }
}

// MARK: - Preferences

extension StoreTransaction {
    func setPreference(_ key: String, _ value: Data) throws(StorageError) {
        try db.run(
            "INSERT OR REPLACE INTO preferences (key, value) VALUES (?, ?)", [.text(key), .blob(value)],
            operation: "write preference \(key)"
        )
    }
}
