import Foundation
import Storage

// MARK: - CommitWindow

/// How far back a pull reaches behind its cursor, and when it may stop reaching back.
///
/// Kinto on PostgreSQL stamps a record with the database's clock while the write's
/// transaction is still open, and takes no lock (`bump_timestamp()` in Kinto's
/// `schema.sql`): two batches into one collection can commit in the opposite order to
/// their stamps. A `_since=<cursor>` pull between the two commits moves its cursor past
/// a record that is not visible yet, and would never ask for it again.
///
/// The rule that closes it: a record invisible to a read was written by a transaction
/// still open then. If no transaction stays open longer than `width`, that record's
/// stamp is later than the server's clock at the read minus `width`; and the server's
/// clock had reached at least the collection timestamp the read reported (a record it
/// had already stamped). So every record stamped at or before
/// `min(cursor, serverClock - width)` was visible to the pull and is in the store:
/// that point is the collection's `settled` stamp, and the next pull asks `_since` it
/// instead of the cursor. Records it already holds come back and are dropped by their
/// version; the rest are the ones that committed late.
///
/// A collection nobody writes to settles: once `width` has passed on this machine's
/// clock since the server's clock was known to be at the cursor, the cursor itself is
/// settled, and an idle run asks from the cursor as it always did (its lists come back
/// empty). The projection assumes only that the two clocks run at the same rate, not
/// that they agree; this machine's clock going back is ignored, and a jump forward is
/// what `Reconciliation` is there for, with transactions longer than `width`.
public struct CommitWindow: Sendable, Equatable {
    /// The longest a write transaction on the server is assumed to stay open.
    public var width: Duration

    /// 60 s: twice gunicorn's default worker timeout (30 s, after which a sync worker
    /// busy with one request is killed and its transaction rolled back). On 4 gunicorn
    /// workers, the concurrent-writer soak (4 × 500 steps) and five runs of 3 writers and
    /// 2 readers (1,440 books each) converged on the window alone, no reconciliation run.
    public static let standard = CommitWindow(width: .seconds(60))

    public init(width: Duration) {
        self.width = width
    }

    /// The width in Kinto's milliseconds, clamped so that no arithmetic with it traps.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = width.components
        guard seconds >= 0 else { return 0 }
        return seconds > 1_000_000_000 ? 1_000_000_000_000 : seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    // MARK: Where a pull starts

    /// The `_since` of a pull's first request: the settled stamp, or one window behind
    /// the cursor in a store that has none yet; nil for a collection never pulled.
    func since(_ state: SyncState) -> Int64? {
        guard let cursor = state.cursor else { return nil }
        return min(cursor, state.settled ?? Self.subtracting(milliseconds, from: cursor))
    }

    /// Whether every record up to the cursor is settled. Only then may a pull ask with
    /// `If-None-Match`: a record that commits late does not change the collection's
    /// timestamp (a later one is already there), so a 304 would hide it.
    func isSettled(_ state: SyncState) -> Bool {
        guard let cursor = state.cursor, let settled = state.settled else { return false }
        return settled >= cursor
    }

    // MARK: The server's clock

    /// A lower bound of the server's clock when it read for a request sent at `sentAt`:
    /// the collection timestamp it answered with, or the last reading moved on by the
    /// time that passed here since — whichever is later.
    func serverClock(reported timestamp: Int64?, previous: ServerClockReading?, sentAt: Date) -> Int64? {
        var floor = timestamp
        if let previous {
            let elapsed = sentAt.timeIntervalSince(previous.seenAt)
            // NB: a clock that went back proves nothing; one that jumps forward is what
            // reconciliation catches. Far beyond a window, the projection adds nothing.
            if elapsed >= 0 {
                let moved = Self.adding(Int64(min(elapsed, 86_400 * 365) * 1000), to: previous.timestamp)
                floor = max(floor ?? moved, moved)
            }
        }
        return floor
    }

    // MARK: Settling

    /// The settled stamp after a pull that started from `since` and has applied records
    /// up to `cursor`, when the server's clock was at least `serverClock` at its first
    /// read. Never behind `since` (that stays true), never past `cursor`.
    func settled(since: Int64?, cursor: Int64?, serverClock: Int64?) -> Int64? {
        guard let cursor else { return since }
        guard let serverClock else { return since }
        let reach = min(cursor, Self.subtracting(milliseconds, from: serverClock))
        guard let since else { return reach }
        return max(since, reach)
    }

    // MARK: Saturating arithmetic

    static func subtracting(_ amount: Int64, from value: Int64) -> Int64 {
        let (result, overflow) = value.subtractingReportingOverflow(amount)
        return overflow ? .min : result
    }

    static func adding(_ amount: Int64, to value: Int64) -> Int64 {
        let (result, overflow) = value.addingReportingOverflow(amount)
        return overflow ? .max : result
    }
}
