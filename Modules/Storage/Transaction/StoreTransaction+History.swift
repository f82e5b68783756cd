import Domain
import Foundation

// MARK: - The history of operations

extension StoreTransaction {
    /// Records what this transaction's local edits did as one operation of the history,
    /// in this transaction: the records whose version changed, each before and after,
    /// with the outbox entry that now holds the change. An operation that changed nothing
    /// is not recorded. A new operation drops the undone ones (what `redo` would have
    /// put back), and the oldest go when the history passes its bounds
    /// (`OperationHistoryLimits`).
    /// - Parameters:
    ///   - origin: what made it (`book edit`, `ui`).
    ///   - reverts: the operation a selective undo takes back by making this one.
    /// - Returns: the operation's sequence, or nil when nothing changed.
    @discardableResult
    public func recordOperation(origin: String, reverts: Int64? = nil) throws(StorageError) -> Int64? {
        guard let journal, !journal.touched.isEmpty else { return nil }
        self.journal = nil
        if journal.isOverflowing { return try recordTooLargeOperation(journal, origin: origin, reverts: reverts) }
        var changes: [(key: OperationJournal.Key, before: Data?, after: Data?)] = []
        var tally: [CollectionName: OperationTally] = [:]
        for key in journal.touched {
            let row = try record(key.collection, id: key.id, includingDeleted: true)
            let after = row.flatMap { $0.isDeleted ? nil : $0.json }
            let before = journal.before[key] ?? .absent
            switch (before, after) {
            case (.absent, nil): continue
            case (.present(let old), let new?) where old == new: continue
            case (.absent, _?): tally[key.collection, default: .init()].added += 1
            case (_, nil): tally[key.collection, default: .init()].removed += 1
            default: tally[key.collection, default: .init()].changed += 1
            }
            if case .present(let old) = before {
                changes.append((key, old, after))
            } else {
                changes.append((key, nil, after))
            }
        }
        guard !changes.isEmpty else { return nil }

        let bytes = changes.reduce(0) { $0 + ($1.before?.count ?? 0) + ($1.after?.count ?? 0) }
        let isComplete = changes.count <= OperationHistoryLimits.maximumRecordsPerOperation
            && bytes <= OperationHistoryLimits.maximumBytesPerOperation
        let sequence = try insertOperation(
            origin: origin, reverts: reverts, isComplete: isComplete, records: changes.count, bytes: isComplete ? bytes : 0, tally: tally)
        if isComplete {
            for (position, change) in changes.enumerated() {
                let entry = try outboxEntry(change.key.collection, id: change.key.id)
                try db.run(
                    """
                    INSERT INTO operation_changes (operation, position, collection, record_id, before, after, outbox_seq)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                    [.integer(sequence), .integer(Int64(position)), .text(change.key.collection.rawValue), .text(change.key.id),
                     .blob(change.before), .blob(change.after), .integer(entry?.sequence)],
                    operation: "record an operation's change")
            }
        }
        try pruneHistory()
        return sequence
    }

    /// An operation past the bound, recorded by its counts only: what each record was
    /// before and whether the operation left it there, with no record read again.
    private func recordTooLargeOperation(_ journal: OperationJournal, origin: String, reverts: Int64?) throws(StorageError) -> Int64? {
        var tally: [CollectionName: OperationTally] = [:]
        var records = 0
        for key in journal.touched {
            let wasThere = (journal.before[key] ?? .absent) != .absent
            let isThere = journal.isThereAfter[key] ?? true
            switch (wasThere, isThere) {
            case (false, false): continue
            case (false, true): tally[key.collection, default: .init()].added += 1
            case (true, false): tally[key.collection, default: .init()].removed += 1
            case (true, true): tally[key.collection, default: .init()].changed += 1
            }
            records += 1
        }
        guard records > 0 else { return nil }
        let sequence = try insertOperation(origin: origin, reverts: reverts, isComplete: false, records: records, bytes: 0, tally: tally)
        try pruneHistory()
        return sequence
    }

    /// Inserts an operation in effect, dropping the undone ones first (a new operation
    /// ends what `redo` could put back).
    private func insertOperation(
        origin: String, reverts: Int64?, isComplete: Bool, records: Int, bytes: Int, tally: [CollectionName: OperationTally]
    ) throws(StorageError) -> Int64 {
        try db.run("DELETE FROM operation_changes WHERE operation IN (SELECT seq FROM operations WHERE state = 'undone')",
                   operation: "forget the operations redo would put back")
        try db.run("DELETE FROM operations WHERE state = 'undone'", operation: "forget the operations redo would put back")
        try db.run(
            """
            INSERT INTO operations (made_at, origin, state, reverts, complete, records, bytes, tally)
            VALUES (?, ?, 'done', ?, ?, ?, ?, ?)
            """,
            [.date(clock.now()), .text(origin), .integer(reverts), .bool(isComplete), .integer(Int64(records)),
             .integer(Int64(bytes)), .text(Self.tallyText(tally))],
            operation: "record an operation")
        return try db.lastInsertRowID
    }

    /// Marks an operation undone or done again (`undo`, `redo`).
    public func setOperationState(_ sequence: Int64, _ state: RecordedOperation.State) throws(StorageError) {
        try db.run("UPDATE operations SET state = ? WHERE seq = ?", [.text(state.rawValue), .integer(sequence)],
                   operation: "mark an operation \(state.rawValue)")
    }

    /// Points an operation's change at the outbox entry that holds it now (a redo queues
    /// it again), or at none.
    public func setOutboxSequence(
        of operation: Int64, position: Int, to outboxSequence: Int64?
    ) throws(StorageError) {
        try db.run(
            "UPDATE operation_changes SET outbox_seq = ? WHERE operation = ? AND position = ?",
            [.integer(outboxSequence), .integer(operation), .integer(Int64(position))], operation: "link a change to its outbox entry")
    }

    /// Drops the oldest operations past `OperationHistoryLimits`: in number, then in bytes.
    private func pruneHistory() throws(StorageError) {
        let sizes = try db.query(
            "SELECT seq, bytes FROM operations ORDER BY seq DESC", operation: "measure the history"
        ) { row in (row.int64(0), row.int(1)) }
        var kept = 0, bytes = 0
        var oldestKept: Int64?
        for (sequence, size) in sizes {
            guard kept < OperationHistoryLimits.maximumOperations, bytes + size <= OperationHistoryLimits.maximumBytes || kept == 0 else {
                break
            }
            kept += 1
            bytes += size
            oldestKept = sequence
        }
        guard let oldestKept, kept < sizes.count else { return }
        try db.run("DELETE FROM operation_changes WHERE operation < ?", [.integer(oldestKept)], operation: "prune the history")
        try db.run("DELETE FROM operations WHERE seq < ?", [.integer(oldestKept)], operation: "prune the history")
    }

    /// `{"books":[added,changed,removed],…}`, keys sorted.
    static func tallyText(_ tally: [CollectionName: OperationTally]) -> String {
        let members = tally.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { "\"\($0.key.rawValue)\":[\($0.value.added),\($0.value.changed),\($0.value.removed)]" }
        return "{" + members.joined(separator: ",") + "}"
    }
}
