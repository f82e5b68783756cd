import Domain
import Records

// MARK: - ListedRecord

/// A record as a window listed it, with its place in the window's order: what a later
/// read anchors on (`RecordQuery.anchor`) to find the rows next to it by seeking.
public struct ListedRecord: Hashable, Sendable {
    public var record: StoredRecord
    public var position: ListPosition
}

// MARK: - Windows

extension StoreReader {
    /// Live records matching `query` with their positions, in its order (last first when
    /// `reversed`): one window of a list that the next one can seek from.
    ///
    /// With an anchor, SQLite seeks the order's index to the anchor's position and reads on
    /// from there, so a window after the 90,000th book costs what the first one does
    /// (an `OFFSET` steps through every row before it).
    /// - Throws: `corruptValue` when the order cannot seek (`RecordOrder.canSeek`), or an
    ///   anchor's values do not fit the order's keys.
    public func window(_ query: RecordQuery) throws(StorageError) -> [ListedRecord] {
        guard let keys = query.order.columns else {
            throw .corruptValue(what: "a window of \(query.collection.rawValue)", reason: "its order sorts by a JSON member, which has no position")
        }
        let (sql, parameters) = try Self.listingSQL(query, positions: true)
        return try db.query(sql, parameters, operation: "list a window of \(query.collection.rawValue)") {
            (row) throws(StorageError) in
            let record = try Self.storedRecord(row)
            let values = keys.enumerated().map { index, key -> ListPosition.Value in
                let column = Int32(5 + index)  // NB: after the five `recordColumns`.
                return switch key.kind {
                case .text: .text(row.text(column))
                case .integer: .integer(row.int64(column))
                }
            }
            return ListedRecord(record: record, position: ListPosition(values: values, id: record.id))
        }
    }

    /// `(key₁, …, id) > (?, …, ?)`: the rows on the anchor's side of its position, as one
    /// row-value comparison, which SQLite answers by seeking the index that holds those
    /// columns in order. Every value is bound.
    ///
    /// The comparison is `>` for the rows after a position in an ascending order, and
    /// turns round for `.before` and for a descending order; `inclusive` adds `=`.
    /// - Parameter skippingFirstKey: leave the first key out, because the filter holds it
    ///   equal to the anchor's value.
    static func seek(
        from anchor: ListAnchor, in order: RecordOrder, skippingFirstKey: Bool = false
    ) throws(StorageError) -> (String, [SQLiteValue]) {
        guard let allKeys = order.columns, allKeys.count == anchor.position.values.count else {
            throw .corruptValue(what: "a listing's anchor", reason: "its position has other keys than the order")
        }
        let dropped = skippingFirstKey && !allKeys.isEmpty ? 1 : 0
        let keys = allKeys.dropFirst(dropped)
        var parameters: [SQLiteValue] = []
        for (key, value) in zip(keys, anchor.position.values.dropFirst(dropped)) {
            switch (key.kind, value) {
            case (.text, .text(let text)): parameters.append(.text(text))
            case (.integer, .integer(let number)): parameters.append(.integer(number))
            default: throw .corruptValue(what: "a listing's anchor", reason: "its \(key.name) is of another type")
            }
        }
        parameters.append(.text(anchor.position.id))
        let greater = (anchor.side == .after) != order.descending
        let comparison = (greater ? ">" : "<") + (anchor.inclusive ? "=" : "")
        let columns = (keys.map(\.name) + ["id"]).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: keys.count + 1).joined(separator: ", ")
        return ("(\(columns)) \(comparison) (\(placeholders))", parameters)
    }
}

// MARK: - One-shot windows

extension ShelfStore {
    public func window(_ query: RecordQuery) throws(StorageError) -> [ListedRecord] {
        try readTyped { (reader) throws(StorageError) in try reader.window(query) }
    }
}
