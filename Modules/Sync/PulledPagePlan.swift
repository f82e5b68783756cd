import Domain
import Foundation
import Records
import Services
import Storage

// MARK: - PulledPagePlan

/// What a pulled page does to its collection's bookkeeping, decided as a value from the
/// page and a read of the store (`Read`): which of its records the store does not hold in
/// that version yet, how many of those came late, and the collection's sync state after
/// the page. Nothing here touches the store or the network (`PulledPagePlanTests`, table-
/// driven over pages).
///
/// `CollectionPull.apply` reads, asks for the plan and carries it out in the page's one
/// transaction: the records it keeps go through the sync rules (`SyncRules.applyPulled`,
/// merges, the rules against a hostile server), then the plan's state is written. The rules
/// a page goes through never touch its sync state, so the state read at the start of the
/// transaction is the one the plan moves on from.
struct PulledPagePlan: Equatable {
    /// What the plan is decided from, read in the page's transaction.
    struct Read: Equatable {
        /// The collection's sync state before the page.
        var state: SyncState
        /// For each record of the page that the store may hold already (`heldCandidates`),
        /// the newest server stamp the store knows it by (`StoreReader.serverStamps`).
        var heldStamps: [String: Int64]
    }

    /// The page's records the store does not hold in that version, in page order.
    var incoming: [RawRecord]
    /// Records of the page the store held in that version already.
    var alreadyHeld: Int
    /// Of `incoming`, those committed out of timestamp order: stamped at or behind the
    /// cursor, after a later record the store had already pulled (`CommitWindow`).
    var late: Int
    /// The collection's sync state once the page is applied.
    var state: SyncState

    /// - Parameters:
    ///   - page: the page as it came (every record, a refused or oversized one too, moves the cursor).
    ///   - records: its records to apply: opened, within the size limit.
    ///   - dropped: what was dropped before the page was opened (a sealed run drops what
    ///     it holds before opening): how many records the store held, and how many of the
    ///     rest are late. `records` are then all incoming.
    ///   - recovering: a recovery's page, applied whole over what the store holds.
    ///   - reading: where the pull started and what it knows of the server's clock.
    init(
        _ page: RecordPage, records: [RawRecord], read: Read, dropped: (held: Int, late: Int)? = nil, recovering: Bool,
        reading: SyncRun.PullReading, window: CommitWindow, now: Date
    ) {
        if let dropped {
            (incoming, alreadyHeld, late) = (records, dropped.held, dropped.late)
        } else if !recovering, let cursor = read.state.cursor {
            let kept = Self.unheld(records, behind: cursor, orPushedUpTo: read.state.pushedTimestamp, heldStamps: read.heldStamps)
            (incoming, alreadyHeld, late) = (kept.records, records.count - kept.records.count, kept.late)
        } else {
            (incoming, alreadyHeld, late) = (records, 0, 0)
        }
        state = Self.state(after: page, from: read.state, reading: reading, window: window, now: now)
    }

    // MARK: Records the store holds already

    /// The ids whose held stamps the plan needs: records stamped at or behind what the store
    /// knows of the collection (its cursor, or its own pushes); later ones are new for sure.
    static func heldCandidates(_ records: [RawRecord], cursor: Int64, orPushedUpTo pushed: Int64?) -> [String] {
        let known = max(cursor, pushed ?? cursor)
        return records.lazy.filter { $0.lastModified <= known }.map(\.id)
    }

    /// The records the store does not hold yet, and how many of them are late: stamped at
    /// or behind the cursor, so committed after a later record the store had already pulled.
    ///
    /// A record stamped behind the cursor that the store holds in that version, or a newer
    /// one, is one this pull reached back over and already has; so is one of this store's
    /// own pushes (stamped up to `pushed`), which the cursor does not follow. A tombstone of
    /// a record the store holds no server version of is applied as before (it may meet a
    /// create in flight) but is not counted late.
    /// - Parameter heldStamps: the newest server stamp the store knows of each candidate.
    static func unheld(
        _ records: [RawRecord], behind cursor: Int64, orPushedUpTo pushed: Int64?, heldStamps held: [String: Int64]
    ) -> (records: [RawRecord], late: Int) {
        let known = max(cursor, pushed ?? cursor)
        guard records.contains(where: { $0.lastModified <= known }) else { return (records, 0) }
        var late = 0
        let kept = records.filter { record in
            guard record.lastModified <= known else { return true }
            if let stamp = held[record.id], stamp >= record.lastModified { return false }
            if record.lastModified <= cursor, !record.isDeleted || held[record.id] != nil { late += 1 }
            return true
        }
        return (kept, late)
    }

    // MARK: The sync state

    /// The state after a page: the cursor moves to the page's highest stamp (every record
    /// counts, a skipped one too), the settled stamp and the server's clock with it; the
    /// last page ends the pull's bookkeeping.
    static func state(after page: RecordPage, from before: SyncState, reading: SyncRun.PullReading, window: CommitWindow, now: Date) -> SyncState {
        var state = before
        if let highest = page.records.map(\.lastModified).max() { state.cursor = max(state.cursor ?? highest, highest) }
        state.settled = window.settled(since: reading.since, cursor: state.cursor, serverClock: reading.serverClock)
        if let clock = reading.serverClock { state.serverClock = ServerClockReading(timestamp: clock, seenAt: now) }
        guard !page.next.morePagesFollow else {
            state.nextPage = page.next.url
            return state
        }
        // A complete pull of the whole list is as good as a reconciliation.
        if reading.fromScratch {
            state.lastReconciled = now
            (state.reconciledThrough, state.reconcilingFrom) = (state.cursor ?? 0, nil)
        }
        // NB: a complete pull leaves a cursor even when the server had nothing: without one
        // the next pull is a plain list, which hides tombstones — and this store may hold
        // records another device deletes meanwhile.
        if state.cursor == nil { state.cursor = 0 }
        state.etag = page.etag?.headerValue
        state.lastSuccess = now
        state.lastError = nil
        state.lastErrorAt = nil
        state.nextPage = nil
        return state
    }

    /// The state when nothing changed since the cursor (a 304, or no record since it): the
    /// collection is synced as of now, and what the answer says of the server's clock may
    /// settle the cursor (`CommitWindow`).
    /// - Parameters:
    ///   - reported: the collection timestamp the server answered with.
    ///   - sentAt: this machine's time before the request left.
    static func upToDate(_ before: SyncState, reported: Int64?, sentAt: Date, window: CommitWindow, now: Date) -> SyncState {
        var state = before
        state.lastSuccess = now
        state.lastError = nil
        state.lastErrorAt = nil
        if state.cursor == nil { state.cursor = 0 }  // see `state(after:…)`
        let clock = window.serverClock(reported: reported, previous: state.serverClock, sentAt: sentAt)
        state.settled = window.settled(since: window.since(state), cursor: state.cursor, serverClock: clock)
        if let clock { state.serverClock = ServerClockReading(timestamp: clock, seenAt: now) }
        return state
    }
}

// MARK: - Reading what a plan needs

extension PulledPagePlan.Read {
    /// Reads what a page's plan needs: the collection's sync state and, unless the page is
    /// a recovery's or was dropped from before it was opened, the stamps held for the
    /// records that may be held.
    init(_ records: [RawRecord], of collection: CollectionName, needsHeldStamps: Bool, _ reader: StoreReader) throws {
        state = try reader.syncState(collection)
        guard needsHeldStamps, let cursor = state.cursor else {
            heldStamps = [:]
            return
        }
        let candidates = PulledPagePlan.heldCandidates(records, cursor: cursor, orPushedUpTo: state.pushedTimestamp)
        heldStamps = candidates.isEmpty ? [:] : try reader.serverStamps(collection, ids: candidates)
    }
}
