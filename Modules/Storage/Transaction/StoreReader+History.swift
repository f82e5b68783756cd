import Domain
import Foundation

// MARK: - The history of operations

extension StoreReader {
    /// The operations of the history, oldest first (at most `OperationHistoryLimits.maximumOperations`).
    public func operations() throws(StorageError) -> [RecordedOperation] {
        try db.query(
            "SELECT \(Self.operationColumns) FROM operations ORDER BY seq", operation: "read the history",
            row: Self.recordedOperation)
    }

    /// One operation, or nil when the history no longer holds it.
    public func operation(_ sequence: Int64) throws(StorageError) -> RecordedOperation? {
        try db.queryFirst(
            "SELECT \(Self.operationColumns) FROM operations WHERE seq = ?", [.integer(sequence)],
            operation: "read an operation", row: Self.recordedOperation)
    }

    /// The newest operation in effect: what `undo` takes back.
    public func lastDoneOperation() throws(StorageError) -> RecordedOperation? {
        try db.queryFirst(
            "SELECT \(Self.operationColumns) FROM operations WHERE state = 'done' ORDER BY seq DESC LIMIT 1",
            operation: "find the last operation", row: Self.recordedOperation)
    }

    /// The oldest operation taken back: what `redo` puts back.
    public func firstUndoneOperation() throws(StorageError) -> RecordedOperation? {
        try db.queryFirst(
            "SELECT \(Self.operationColumns) FROM operations WHERE state = 'undone' ORDER BY seq LIMIT 1",
            operation: "find the operation to redo", row: Self.recordedOperation)
    }

    /// The records an operation changed, in its order (none for one too large to keep them).
    public func operationChanges(_ sequence: Int64) throws(StorageError) -> [RecordedChange] {
        try db.query(
            """
            SELECT operation, position, collection, record_id, before, after, outbox_seq
            FROM operation_changes WHERE operation = ? ORDER BY position
            """,
            [.integer(sequence)], operation: "read an operation's changes"
        ) { (row) throws(StorageError) in
            guard let collection = CollectionName(rawValue: row.text(2)) else {
                throw .corruptValue(what: "an operation's collection", reason: "unknown collection '\(row.text(2))'")
            }
            return RecordedChange(
                operation: row.int64(0), position: row.int(1), collection: collection, recordID: row.text(3),
                before: row.optionalBlob(4), after: row.optionalBlob(5), outboxSequence: row.optionalInt64(6))
        }
    }

    /// The operations in effect, made after `sequence`, that changed the record: who
    /// changed it since (oldest first).
    public func laterOperations(
        touching collection: CollectionName, id: String, after sequence: Int64
    ) throws(StorageError) -> [RecordedOperation] {
        try db.query(
            """
            SELECT o.seq, o.made_at, o.origin, o.state, o.reverts, o.complete, o.records, o.bytes, o.tally
            FROM operation_changes c JOIN operations o ON o.seq = c.operation
            WHERE c.collection = ? AND c.record_id = ? AND c.operation > ? AND o.state = 'done'
            ORDER BY o.seq
            """,
            [.text(collection.rawValue), .text(id), .integer(sequence)], operation: "find later operations on a record",
            row: Self.recordedOperation)
    }

    /// The newest operation in effect that changed the record (`undo ID`).
    public func lastOperation(touching collection: CollectionName, id: String) throws(StorageError) -> RecordedOperation? {
        try laterOperations(touching: collection, id: id, after: 0).last
    }

    /// The records the operations in effect changed, each once: what `undo ID` may name.
    public func recordsInHistory() throws(StorageError) -> [(collection: CollectionName, id: String)] {
        try db.query(
            """
            SELECT DISTINCT c.collection, c.record_id FROM operation_changes c JOIN operations o ON o.seq = c.operation
            WHERE o.state = 'done' ORDER BY c.collection, c.record_id
            """, operation: "list the records in the history"
        ) { row in (CollectionName(rawValue: row.text(0)), row.text(1)) }
            .compactMap { pair in pair.0.map { (collection: $0, id: pair.1) } }
    }

    /// Every outbox entry by sequence, with whether it is in flight: where each change of
    /// the history is on its way to the server (no record bodies are read).
    public func outboxDelivery() throws(StorageError) -> [Int64: OutboxDelivery] {
        let rows = try db.query(
            "SELECT seq, collection, record_id, sent_revision IS NOT NULL FROM outbox", operation: "list the outbox"
        ) { row in (row.int64(0), row.text(1), row.text(2), row.bool(3)) }
        var delivery: [Int64: OutboxDelivery] = [:]
        for (sequence, collection, id, inFlight) in rows {
            guard let collection = CollectionName(rawValue: collection) else { continue }
            delivery[sequence] = OutboxDelivery(collection: collection, recordID: id, isInFlight: inFlight)
        }
        return delivery
    }

    // MARK: Rows

    /// NB: `laterOperations` names the same columns, in the same order, through its join.
    static let operationColumns = "seq, made_at, origin, state, reverts, complete, records, bytes, tally"

    static func recordedOperation(_ row: SQLiteRow) throws(StorageError) -> RecordedOperation {
        guard let state = RecordedOperation.State(rawValue: row.text(3)) else {
            throw .corruptValue(what: "an operation's state", reason: "unknown state '\(row.text(3))'")
        }
        return RecordedOperation(
            sequence: row.int64(0), madeAt: row.date(1), origin: row.text(2), state: state, reverts: row.optionalInt64(4),
            isComplete: row.bool(5), records: row.int(6), bytes: row.int(7), tally: tally(row.text(8)))
    }

    /// `{"books":[1,0,0]}` read leniently: a collection this build does not know is left out.
    static func tally(_ text: String) -> [CollectionName: OperationTally] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: [Int]] else { return [:] }
        var tally: [CollectionName: OperationTally] = [:]
        for (name, counts) in object where counts.count == 3 {
            guard let collection = CollectionName(rawValue: name) else { continue }
            tally[collection] = OperationTally(added: counts[0], changed: counts[1], removed: counts[2])
        }
        return tally
    }
}
