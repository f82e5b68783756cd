import Foundation

// MARK: - Bounded memories

/// The store's bounded memories of what the server acknowledged (deletions, writes):
/// each a table keyed by `(collection, id)` with the time an entry was made.
enum BoundedMemory: String {
    case acknowledgedDeletions = "acknowledged_deletions"
    case acknowledgedWrites = "acknowledged_writes"

    /// The column holding when an entry was made.
    var timeColumn: String {
        switch self {
        case .acknowledgedDeletions: "deleted_at"
        case .acknowledgedWrites: "acknowledged_at"
        }
    }

    /// Words for error messages.
    var what: String { rawValue.replacingOccurrences(of: "_", with: " ") }
}

extension StoreTransaction {
    /// Drops a memory's entries older than `maximumAge`, then all but the newest `maximumCount`.
    /// NB: the table and column names are the enum's own constants, never input.
    func prune(_ memory: BoundedMemory, now: Date, maximumAge: TimeInterval, maximumCount: Int) throws(StorageError) {
        let (table, time) = (memory.rawValue, memory.timeColumn)
        try db.run(
            "DELETE FROM \(table) WHERE \(time) < ?", [.date(now.addingTimeInterval(-maximumAge))],
            operation: "drop old \(memory.what)")
        try db.run(
            """
            DELETE FROM \(table) WHERE (collection, id) IN (
                SELECT collection, id FROM \(table) ORDER BY \(time) DESC LIMIT -1 OFFSET ?)
            """,
            [.integer(Int64(maximumCount))], operation: "cap \(memory.what)")
    }
}
