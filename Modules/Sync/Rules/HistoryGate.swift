import Domain
import Foundation
import Services
import Storage

// MARK: - HistoryGate

/// An idle run that asks the server one question instead of one per collection, on a Kinto
/// with `kinto.plugins.history`.
///
/// Why: an idle run's batch asks `_since` of every collection, the keyring and the bucket's
/// collection objects: nine sub-requests, each a fixed ~7 ms of Kinto's CPU, and idle runs
/// are almost all of a fleet's load on the server (Benchmarks/README.md). The history plugin
/// writes an entry for every change in the bucket, in the change's own transaction, so one
/// `_since` of the bucket's history says whether anything changed anywhere in it. Measured
/// on this machine (Benchmarks/README.md, *Reading the bucket's history*): an idle run costs
/// Kinto and PostgreSQL 53–62 ms, one that reads the history (with the catalog beside it)
/// 15–25 ms.
///
/// The rule, and why it loses nothing:
/// - The history's entries are stamped on their own timeline, which commits out of order
///   just as a collection's does; its reading keeps a cursor and a settled stamp with the
///   same `CommitWindow` as a collection's, so no entry is passed over.
/// - An entry is *known* when it is a record change of one of the reader's collections
///   that the store holds in that version or a newer one (this device's own pushes), or
///   that is stamped at or before where that collection is settled (every record stamped up
///   to there is in the store); or when a run read it before asking every collection and
///   pulling them all to the end (`BucketHistoryState.covered`). Anything else (another
///   device's change, a deletion, a collection or the keyring rewritten, a collection Shelf
///   does not sync, a page's worth of entries) is *news*, and the run asks every collection
///   as it always did.
/// - When every entry is known the run is idle: each collection is up to date as of the
///   history read, exactly as an empty `_since` list would have said.
/// - The history is a hint, never a source: it never applies, deletes or skips a record; a
///   wrong or hostile history can only make a run ask everything, or ask nothing, which a
///   server can always do by answering empty lists.
/// - What bypasses Kinto (an operator writing straight into PostgreSQL) writes no entry, so
///   a run asks every collection at least every `fullCheckEvery` whatever the history says.
/// - A server told not to record this bucket or user, or to trim its history to fewer
///   entries than a page, would leave a quiet history: the history must show the last write
///   of this device's that the server stored after the last read (`BucketHistoryState.proof`),
///   and a full page is news. One that fails is not read for `distrustFor`.
///
/// A value with no store and no server (`HistoryGateTests`): `SyncRun` reads the states and
/// the held versions the entries name, asks `verdict`, and keeps what `reading(after:…)` says.
struct HistoryGate {
    /// Entries read per run: more since the last read means a busy bucket, whose changes an
    /// ordinary run fetches anyway.
    static let pageLimit = 100

    /// How long a history reading is trusted without a run that asks every collection.
    static let fullCheckEvery: TimeInterval = 3600

    /// How long a history that failed its proof is left unread.
    static let distrustFor: TimeInterval = 86_400

    /// What the history said.
    enum Verdict: Equatable {
        /// Every entry is known: nothing changed on the server that this store lacks.
        case quiet
        /// Ask every collection; why, for the debug log.
        case news(String)
        /// The history does not show a write this device made after the last read: the server
        /// does not record this bucket (`history.exclude_resources`, `exclude_user_ids`, a
        /// trim below a page). Ask every collection, and leave the history for `distrustFor`.
        case untrusted(String)
    }

    // MARK: - Whether to ask

    /// Whether a run may ask the history instead of every collection: a reading kept from a
    /// full check less than `fullCheckEvery` ago, and every collection in its ordinary
    /// state (pulled before, not refused, not recovering, no pull left half-way).
    static func mayAsk(_ history: BucketHistoryState?, states: [SyncState], now: Date) -> Bool {
        guard let history, !isDistrusted(history, now: now) else { return false }
        // NB: a full check more than a minute in this machine's future means its clock went
        // back, and the hour can no longer be told; less is rounding (the reading keeps
        // milliseconds) or a small correction.
        let sinceFullCheck = now.timeIntervalSince(history.fullCheckAt)
        guard sinceFullCheck > -60, sinceFullCheck < fullCheckEvery else { return false }
        return states.allSatisfy { state in
            state.collection.isReadOnly
                || (state.lastSuccess != nil && state.cursor != nil && !state.recovering && !state.wasRefused && state.nextPage == nil)
        }
    }

    /// Whether the history failed its proof less than `distrustFor` ago.
    static func isDistrusted(_ history: BucketHistoryState, now: Date) -> Bool {
        history.distrustedUntil.map { now < $0 } ?? false
    }

    /// The history read's `_since`: where it is settled, or one window behind its cursor.
    static func since(_ history: BucketHistoryState, window: CommitWindow) -> Int64 {
        min(history.cursor, history.settled ?? CommitWindow.subtracting(window.milliseconds, from: history.cursor))
    }

    // MARK: - The verdict

    /// The ids whose stored versions `verdict` needs, by collection: every record change of
    /// the reader's collections in `page`; none for a full page, which is news whatever it holds.
    static func lookups(_ page: BucketHistoryPage) -> [CollectionName: Set<String>] {
        guard !isFull(page) else { return [:] }
        var ids: [CollectionName: Set<String>] = [:]
        for change in page.changes {
            if let (collection, id, _) = recordChange(change) { ids[collection, default: []].insert(id) }
        }
        return ids
    }

    /// Whether `page`, read from `history`, holds anything this store lacks.
    /// - Parameters:
    ///   - states: the reader's collections' states, by name.
    ///   - held: the newest server version the store knows of each id `lookups` named.
    static func verdict(
        _ page: BucketHistoryPage, reading history: BucketHistoryState, states: [CollectionName: SyncState],
        held: [CollectionName: [String: Int64]]
    ) -> Verdict {
        // NB: a full page is news too: a history trimmed to fewer entries than were written
        // since the last read (`history.auto_trim_max_count`) would otherwise hide the rest.
        if isFull(page) { return .news("\(pageLimit) or more changes since the last read") }
        if let timestamp = page.timestamp, timestamp < history.cursor { return .news("the history went back (\(timestamp) < \(history.cursor))") }
        if let proof = history.proof, !page.changes.contains(where: { proves($0, proof) }) {
            return .untrusted("the history does not show \(proof.collection) \(proof.id) at \(proof.version), which this device wrote")
        }
        for change in page.changes {
            if history.covered[change.id] == change.stamp { continue }
            guard let (collection, id, version) = recordChange(change), let state = states[collection] else {
                return .news("\(change.resource) \(change.collection ?? "") changed")
            }
            if let stamp = held[collection]?[id], stamp >= version { continue }
            if let settled = state.settled, let cursor = state.cursor, version <= min(settled, cursor) { continue }
            return .news("\(collection.rawValue) \(id) changed")
        }
        return .quiet
    }

    /// A page with a page's worth of entries or more (a server may send more than it was
    /// asked for), or that says more follow.
    private static func isFull(_ page: BucketHistoryPage) -> Bool {
        page.morePagesFollow || page.changes.count >= pageLimit
    }

    /// Whether `change` is the entry of the write `proof` names.
    private static func proves(_ change: BucketChange, _ proof: BucketHistoryState.Proof) -> Bool {
        change.resource == "record" && change.collection == proof.collection && change.recordID == proof.id && change.version == proof.version
    }

    /// A record change of one of the reader's own collections, with its id and version.
    private static func recordChange(_ change: BucketChange) -> (CollectionName, String, Int64)? {
        guard change.resource == "record", let name = change.collection.flatMap(CollectionName.init(rawValue:)),
              !name.isReadOnly, let id = change.recordID, let version = change.version
        else { return nil }
        return (name, id, version)
    }

    // MARK: - The reading kept

    /// The reading after a quiet read that started from `history` at `sentAt`: the cursor
    /// moves to the newest entry read, and the settled stamp with the server's clock
    /// (`CommitWindow`), as a collection's after an empty or known page.
    static func reading(after page: BucketHistoryPage, from history: BucketHistoryState, sentAt: Date, window: CommitWindow, now: Date) -> BucketHistoryState {
        var next = history
        if let newest = page.changes.map(\.stamp).max() { next.cursor = max(next.cursor, newest) }
        let clock = window.serverClock(reported: page.timestamp, previous: history.serverClock, sentAt: sentAt)
        next.settled = window.settled(since: since(history, window: window), cursor: next.cursor, serverClock: clock)
        if let clock { (next.clockTimestamp, next.clockSeenAt) = (clock, now) }
        // NB: `_since` is strict: an entry stamped at or before where the next read starts never comes back.
        let start = since(next, window: window)
        next.covered = next.covered.filter { $0.value > start }
        next.proof = nil  // shown by this read
        return next
    }

    /// A fresh reading, after a run that read the history (`page`) and then asked every
    /// collection, all of which it pulled to the end. Every entry stamped before the
    /// history's timestamp minus a window had committed before that read, so the pulls after
    /// it saw its change; the next read reaches back one window for any that had not, and
    /// knows the entries this read saw (`covered`). Nil when the answer named no timestamp.
    static func fresh(bucket: String, page: BucketHistoryPage, now: Date) -> BucketHistoryState? {
        let newest = page.changes.map(\.stamp).max()
        guard let timestamp = [page.timestamp, newest].compactMap({ $0 }).max(), timestamp >= 0 else { return nil }
        return BucketHistoryState(
            bucket: bucket, cursor: timestamp, serverClock: ServerClockReading(timestamp: timestamp, seenAt: now), fullCheckAt: now,
            // NB: at most a page of them: what a server sends beyond is news next time, not kept.
            covered: Dictionary(page.changes.prefix(pageLimit).map { ($0.id, $0.stamp) }, uniquingKeysWith: max))
    }
}
