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

    /// The waiting changes of records whose id starts with `prefix`, in push order: how a
    /// short id typed on the command line finds its change. Ids are ASCII letters,
    /// digits, `-` and `_` (`RecordID`), all below `~`, which bounds the range.
    public func outboxEntries(idPrefix prefix: String) throws(StorageError) -> [OutboxEntry] {
        try db.query(
            "SELECT \(Self.outboxColumns) FROM outbox WHERE record_id >= ? AND record_id < ? ORDER BY seq",
            [.text(prefix), .text(prefix + "~")], operation: "find outbox entries by id prefix", row: Self.outboxEntry
        )
    }
}
