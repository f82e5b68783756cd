import Domain
import Foundation

// MARK: - The most recent local change

extension StoreReader {
    /// The waiting change the reader made last (the latest edit folded into it), ties
    /// broken by push order: what an undo takes back first. Nil when nothing waits.
    /// NB: reads the outbox alone — no record content — so it costs a scan of the
    /// outbox's small rows even after an import queued thousands of changes.
    public func mostRecentlyChangedEntry() throws(StorageError) -> OutboxEntry? {
        try db.queryFirst(
            "SELECT \(Self.outboxColumns) FROM outbox ORDER BY updated_at DESC, seq DESC LIMIT 1",
            operation: "read the most recent outbox entry", row: Self.outboxEntry
        )
    }
}
