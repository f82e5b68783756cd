import Domain
import Foundation
import Records
import Services
import Storage
@testable import Sync
import Testing

// MARK: - A pulled page's plan, over pages: no store, no server

@Suite struct PulledPagePlanTests {
    private static let now = Date(timeIntervalSince1970: 1_800_000_000)
    private static let window = CommitWindow(width: .seconds(60))

    private static func record(_ id: String, _ stamp: Int64, deleted: Bool = false) -> RawRecord {
        RawRecord(id: id, lastModified: stamp, isDeleted: deleted, json: Data(#"{"id":"\#(id)"}"#.utf8))
    }

    private static func state(cursor: Int64?, pushed: Int64? = nil) -> SyncState {
        var state = SyncState(collection: .books)
        state.cursor = cursor
        state.pushedTimestamp = pushed
        return state
    }

    private static let reading = SyncRun.PullReading(since: 100, serverClock: nil, fromScratch: false)

    // MARK: Which records are new

    /// A page, what the store holds, and what the plan keeps of it.
    struct Held: Sendable, CustomTestStringConvertible {
        let name: String
        let records: [RawRecord]
        let cursor: Int64?
        var pushed: Int64?
        var heldStamps: [String: Int64] = [:]
        var recovering = false
        var dropped: (held: Int, late: Int)?
        let incoming: [String]
        let alreadyHeld: Int
        let late: Int
        var testDescription: String { name }
    }

    static let held: [Held] = [
        Held(name: "a first pull keeps everything", records: [record("a", 5), record("b", 6)], cursor: nil,
             incoming: ["a", "b"], alreadyHeld: 0, late: 0),
        Held(name: "records past the cursor are new", records: [record("a", 101), record("b", 102)], cursor: 100,
             incoming: ["a", "b"], alreadyHeld: 0, late: 0),
        Held(name: "a record held in that version is dropped", records: [record("a", 90), record("b", 101)], cursor: 100,
             heldStamps: ["a": 90], incoming: ["b"], alreadyHeld: 1, late: 0),
        Held(name: "a record held in a newer version is dropped", records: [record("a", 90)], cursor: 100,
             heldStamps: ["a": 95], incoming: [], alreadyHeld: 1, late: 0),
        Held(name: "a record held older came late", records: [record("a", 90)], cursor: 100,
             heldStamps: ["a": 80], incoming: ["a"], alreadyHeld: 0, late: 1),
        Held(name: "a record not held behind the cursor came late", records: [record("a", 90)], cursor: 100,
             incoming: ["a"], alreadyHeld: 0, late: 1),
        Held(name: "a tombstone of a record never held is applied, not late", records: [record("a", 90, deleted: true)], cursor: 100,
             incoming: ["a"], alreadyHeld: 0, late: 0),
        Held(name: "a tombstone of a record held older came late", records: [record("a", 90, deleted: true)], cursor: 100,
             heldStamps: ["a": 80], incoming: ["a"], alreadyHeld: 0, late: 1),
        Held(name: "one of this store's pushes past the cursor is dropped", records: [record("a", 110)], cursor: 100, pushed: 120,
             heldStamps: ["a": 110], incoming: [], alreadyHeld: 1, late: 0),
        Held(name: "another's write among this store's pushes is new, not late", records: [record("a", 110)], cursor: 100, pushed: 120,
             incoming: ["a"], alreadyHeld: 0, late: 0),
        Held(name: "a recovery takes the page whole", records: [record("a", 90)], cursor: 100, heldStamps: ["a": 90], recovering: true,
             incoming: ["a"], alreadyHeld: 0, late: 0),
        Held(name: "what was dropped before opening is counted as it was", records: [record("b", 101)], cursor: 100,
             dropped: (held: 2, late: 1), incoming: ["b"], alreadyHeld: 2, late: 1),
    ]

    @Test(arguments: held)
    func aPageKeepsWhatTheStoreDoesNotHoldAndCountsWhatCameLate(_ expected: Held) {
        let page = RecordPage(records: expected.records, next: .done)
        let read = PulledPagePlan.Read(state: Self.state(cursor: expected.cursor, pushed: expected.pushed), heldStamps: expected.heldStamps)
        let plan = PulledPagePlan(
            page, records: expected.records, read: read, dropped: expected.dropped, recovering: expected.recovering,
            reading: Self.reading, window: Self.window, now: Self.now)
        #expect(plan.incoming.map(\.id) == expected.incoming)
        #expect(plan.alreadyHeld == expected.alreadyHeld)
        #expect(plan.late == expected.late)
    }

    @Test func onlyRecordsAtOrBehindWhatTheStoreKnowsNeedTheirHeldStamps() {
        let records = [Self.record("a", 90), Self.record("b", 100), Self.record("c", 110), Self.record("d", 130)]
        #expect(PulledPagePlan.heldCandidates(records, cursor: 100, orPushedUpTo: nil) == ["a", "b"])
        #expect(PulledPagePlan.heldCandidates(records, cursor: 100, orPushedUpTo: 120) == ["a", "b", "c"])
        #expect(PulledPagePlan.heldCandidates(records, cursor: 100, orPushedUpTo: 50) == ["a", "b"])
    }

    // MARK: The sync state after a page

    /// A page, the state before it, and the state after it.
    struct After: Sendable, CustomTestStringConvertible {
        let name: String
        let stamps: [Int64]
        let next: PageContinuation
        var etag: ETag?
        let cursorBefore: Int64?
        var reading = PulledPagePlanTests.reading
        let cursor: Int64?
        let settled: Int64?
        let nextPage: String?
        let finished: Bool
        var reconciled = false
        var testDescription: String { name }
    }

    static let after: [After] = [
        After(name: "a middle page moves the cursor and keeps its Next-Page", stamps: [101, 105], next: .url("http://kinto/next"),
              cursorBefore: 100, cursor: 105, settled: 100, nextPage: "http://kinto/next", finished: false),
        After(name: "a middle page to ask for by cursor keeps no link", stamps: [101], next: .byCursor,
              cursorBefore: 100, cursor: 101, settled: 100, nextPage: nil, finished: false),
        After(name: "the last page ends the pull", stamps: [101], next: .done, etag: ETag(timestamp: 101),
              cursorBefore: 100, cursor: 101, settled: 100, nextPage: nil, finished: true),
        After(name: "a page behind the cursor never moves it back", stamps: [60, 70], next: .done,
              cursorBefore: 100, cursor: 100, settled: 100, nextPage: nil, finished: true),
        After(name: "an empty last page of a first pull leaves a cursor of 0", stamps: [], next: .done,
              cursorBefore: nil, reading: SyncRun.PullReading(since: nil, serverClock: nil, fromScratch: true),
              cursor: 0, settled: nil, nextPage: nil, finished: true, reconciled: true),
        After(name: "a whole list pulled to its end counts as reconciled", stamps: [5, 9], next: .done,
              cursorBefore: nil, reading: SyncRun.PullReading(since: nil, serverClock: nil, fromScratch: true),
              cursor: 9, settled: nil, nextPage: nil, finished: true, reconciled: true),
        After(name: "the server's clock settles what is a window behind it", stamps: [200_000], next: .done,
              cursorBefore: 100, reading: SyncRun.PullReading(since: 100, serverClock: 150_000, fromScratch: false),
              cursor: 200_000, settled: 90_000, nextPage: nil, finished: true),
        After(name: "settled never passes the cursor", stamps: [101], next: .done,
              cursorBefore: 100, reading: SyncRun.PullReading(since: 100, serverClock: 900_000, fromScratch: false),
              cursor: 101, settled: 101, nextPage: nil, finished: true),
    ]

    @Test(arguments: after)
    func aPageMovesTheSyncStateOn(_ expected: After) {
        var before = Self.state(cursor: expected.cursorBefore)
        before.lastError = "unavailable: earlier"
        before.etag = "\"1\""
        let page = RecordPage(records: expected.stamps.map { Self.record("r\($0)", $0) }, next: expected.next, etag: expected.etag)
        let state = PulledPagePlan.state(after: page, from: before, reading: expected.reading, window: Self.window, now: Self.now)
        #expect(state.cursor == expected.cursor)
        #expect(state.settled == expected.settled)
        #expect(state.nextPage == expected.nextPage)
        #expect(state.lastSuccess == (expected.finished ? Self.now : nil))
        #expect(state.lastError == (expected.finished ? nil : "unavailable: earlier"))
        #expect(state.etag == (expected.finished ? expected.etag?.headerValue : "\"1\""))
        #expect(state.lastReconciled == (expected.reconciled ? Self.now : nil))
        #expect(state.reconciledThrough == (expected.reconciled ? expected.cursor : nil))
        if let clock = expected.reading.serverClock {
            #expect(state.serverClock == ServerClockReading(timestamp: clock, seenAt: Self.now))
        }
    }

    @Test func thePlansStateIsTheStateAfterItsPage() {
        let page = RecordPage(records: [Self.record("a", 101)], next: .done, etag: ETag(timestamp: 101))
        let read = PulledPagePlan.Read(state: Self.state(cursor: 100), heldStamps: [:])
        let plan = PulledPagePlan(page, records: page.records, read: read, recovering: false, reading: Self.reading, window: Self.window, now: Self.now)
        #expect(plan.state == PulledPagePlan.state(after: page, from: read.state, reading: Self.reading, window: Self.window, now: Self.now))
    }

    // MARK: Nothing changed

    @Test func anUpToDateAnswerMarksTheCollectionSyncedAndMaySettleTheCursor() {
        var before = Self.state(cursor: 200_000)
        before.settled = 100_000
        before.lastError = "earlier"
        let state = PulledPagePlan.upToDate(before, reported: 300_000, sentAt: Self.now, window: Self.window, now: Self.now)
        #expect(state.lastSuccess == Self.now)
        #expect(state.lastError == nil)
        #expect(state.cursor == 200_000)
        #expect(state.settled == 200_000, "the server's clock is a window past the cursor")
        #expect(state.serverClock == ServerClockReading(timestamp: 300_000, seenAt: Self.now))

        let first = PulledPagePlan.upToDate(Self.state(cursor: nil), reported: nil, sentAt: Self.now, window: Self.window, now: Self.now)
        #expect(first.cursor == 0, "a complete pull leaves a cursor")
        #expect(first.serverClock == nil)
    }
}
