import Domain
import Foundation
import Records
import Services
import Storage
@testable import Sync
import TestSupport
import Testing

/// Records that commit after later ones — what Kinto on PostgreSQL does with writes into
/// one collection at once — against a server whose commits the test orders
/// (`OutOfOrderKinto`): the next pull reaches back over the commit window and applies
/// them like any pulled change; one that stayed open longer is found by reconciliation.
@Suite("Commit window and reconciliation")
struct CommitWindowSyncTests {
    private static let base = "http://127.0.0.1:1/v1"

    private struct Device {
        let store: ShelfStore
        let server: OutOfOrderKinto
        let clock: ManualClock
        let transport: FakeHTTPTransport

        init(_ server: OutOfOrderKinto, clock: ManualClock = ManualClock()) throws {
            self.store = try ShelfStore.inMemory()
            self.server = server
            self.clock = clock
            self.transport = server.transport
        }

        func sync(reconcile: Bool = false, pushes: Bool = false) async -> RunReport {
            let client = APIClient(configuration: .init(baseURL: CommitWindowSyncTests.base, credentials: .init(user: "u", password: "p")),
                                   transport: transport)
            var options = SyncOptions(collections: [.books], retry: RetryPolicy(maxAttempts: 1), pushes: pushes)
            options.reconcilesNow = reconcile
            let engine = SyncEngine(account: "test", store: store, client: client, options: options,
                                    clock: SyncClock(now: clock.function, sleep: { _ in }))
            return await engine.run()
        }

        func ids() throws -> [String] {
            try store.read { try $0.records(RecordQuery(.books)).map(\.id) }.sorted()
        }

        func title(_ id: String) throws -> String? {
            guard let json = try store.read({ try $0.record(.books, id: id)?.json }),
                  let object = try JSONSerialization.jsonObject(with: json) as? [String: Any] else { return nil }
            return object["title"] as? String
        }

        var state: SyncState { get throws { try store.read { try $0.syncState(.books) } } }
        var lastListURL: String? { server.requests.last { $0.contains("/records") } }
    }

    /// Kinto's stamps are milliseconds since 1970, near the test clock's time.
    private static let t0: Int64 = Int64(SampleShelf.now.timeIntervalSince1970 * 1000)

    // MARK: - The window

    @Test func aRecordCommittedAfterALaterOneIsPulledByTheNextRun() async throws {
        // GIVEN b2 stamped between b1 and b3 but still uncommitted when the device pulls
        let server = OutOfOrderKinto()
        server.put("b1", at: Self.t0 + 100, title: "One")
        let late = server.write("b2", at: Self.t0 + 150, title: "Two")
        server.put("b3", at: Self.t0 + 200, title: "Three")
        let device = try Device(server)
        let first = await device.sync()
        #expect(first.outcome == .synced, "\(first.message)")
        #expect(try device.ids() == ["b1", "b3"])
        #expect(try device.state.cursor == Self.t0 + 200)
        #expect(try device.state.settled.map { $0 < Self.t0 + 150 } == true, "the cursor is not settled while b2 may come")

        // WHEN b2 commits and the device syncs a second later
        server.commit(late)
        device.clock.advance(by: .seconds(1))
        let second = await device.sync()

        // THEN b2 is pulled, counted late, and b1 and b3 are not pulled again
        #expect(second.outcome == .synced, "\(second.message)")
        #expect(try device.ids() == ["b1", "b2", "b3"])
        #expect(try device.title("b2") == "Two")
        #expect(second.collections["books"]?.late == 1)
        #expect(second.collections["books"]?.pulled == 1)
        #expect(device.lastListURL?.contains("_since=\(Self.t0 + 200)") == false, "the pull reaches back behind the cursor")
    }

    @Test func anIdleCollectionSettlesOnceTheWindowHasPassed() async throws {
        // GIVEN a device that pulled b1 and b2 a moment ago
        let server = OutOfOrderKinto()
        server.put("b1", at: Self.t0 + 100)
        server.put("b2", at: Self.t0 + 200)
        let device = try Device(server)
        _ = await device.sync()
        device.clock.advance(by: .seconds(1))
        let within = await device.sync()
        // THEN within the window a run reaches back but pulls nothing new
        #expect(within.collections["books"]?.pulled == 0)
        #expect(device.lastListURL?.contains("_since=\(Self.t0 + 200)") == false)

        // WHEN the window has passed on the device's clock
        device.clock.advance(by: .seconds(61))
        _ = await device.sync()
        let idle = await device.sync()

        // THEN the cursor is settled: the next run asks from it, with the ETag
        #expect(try device.state.settled == Self.t0 + 200)
        #expect(idle.outcome == .synced)
        #expect(device.lastListURL?.contains("_since=\(Self.t0 + 200)") == true, "\(device.lastListURL ?? "")")
        #expect(idle.requests == 1)
    }

    @Test func aLateDeletionIsApplied() async throws {
        // GIVEN a device that holds b1, and b1's deletion stamped before b2 but committed after it
        let server = OutOfOrderKinto()
        server.put("b1", at: Self.t0 + 100, title: "One")
        let device = try Device(server)
        _ = await device.sync()
        let deletion = server.write("b1", at: Self.t0 + 150, deleted: true)
        server.put("b2", at: Self.t0 + 200)
        _ = await device.sync()
        #expect(try device.ids() == ["b1", "b2"])

        // WHEN the deletion commits
        server.commit(deletion)
        device.clock.advance(by: .seconds(1))
        let report = await device.sync()

        // THEN the next run deletes b1 here too
        #expect(report.outcome == .synced)
        #expect(try device.ids() == ["b2"])
        #expect(report.collections["books"]?.late == 1)
    }

    @Test func aLateChangeMergesWithAWaitingEditWithoutAConflict() async throws {
        // GIVEN a device with a waiting edit of b1's author, and another device's change of
        // b1's title stamped before b2 but committed after it
        let server = OutOfOrderKinto()
        server.put("b1", at: Self.t0 + 100, title: "One")
        let device = try Device(server)
        _ = await device.sync()
        try device.store.write { tx in
            _ = try tx.saveLocal(.books, id: "b1", json: Data(#"{"id":"b1","title":"One","author_name":"Me","finished":false}"#.utf8))
        }
        let change = server.write("b1", at: Self.t0 + 150, title: "One, revised")
        server.put("b2", at: Self.t0 + 200)
        _ = await device.sync()

        // WHEN it commits and the device pulls again, twice
        server.commit(change)
        device.clock.advance(by: .seconds(1))
        let report = await device.sync()
        device.clock.advance(by: .seconds(1))
        let again = await device.sync()

        // THEN both changes stand, merged once, with no conflict and the edit still waiting
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(report.collections["books"]?.merged == 1)
        #expect(again.collections["books"]?.merged == 0, "a version merged once is not merged again")
        #expect(try device.title("b1") == "One, revised")
        #expect(try device.store.read { try $0.conflictCount() } == 0)
        let entry = try #require(try device.store.read { try $0.outboxEntry(.books, id: "b1") })
        #expect(entry.baseLastModified == Self.t0 + 150)
    }

    // MARK: - Reconciliation

    @Test func aRecordWhoseWriteOutlivedTheWindowIsFoundByReconciliation() async throws {
        // GIVEN b2 stamped before b3 in a transaction that stays open past the window,
        // while the device syncs and settles
        let server = OutOfOrderKinto()
        server.put("b1", at: Self.t0 + 100)
        let slow = server.write("b2", at: Self.t0 + 150, title: "Slow")
        server.put("b3", at: Self.t0 + 200)
        let device = try Device(server)
        _ = await device.sync()
        device.clock.advance(by: .seconds(120))
        _ = await device.sync()
        #expect(try device.state.settled == Self.t0 + 200)

        // WHEN it commits at last, a pull alone does not see it
        server.commit(slow)
        device.clock.advance(by: .seconds(1))
        _ = await device.sync()
        #expect(try device.ids() == ["b1", "b3"])

        // THEN a reconciliation lists ids and versions, fetches b2 by id and applies it
        let asked = server.requests.count
        let report = await device.sync(reconcile: true)
        #expect(report.requests == server.requests.count - asked, "each request counted once")
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(try device.ids() == ["b1", "b2", "b3"])
        #expect(try device.title("b2") == "Slow")
        let found = try #require(report.collections["books"]?.reconciliation)
        #expect(found.listed == 3)
        #expect(found.fetched == 1)
        #expect(found.absent == 0)
        #expect(report.collections["books"]?.late == 1)
        #expect(server.asked.contains { $0.contains("_fields=id,last_modified,deleted") })
        #expect(server.asked.contains { $0.contains("in_id=b2") })
        #expect(try device.state.lastReconciled == device.clock.now)
    }

    @Test func reconciliationAppliesAMissedDeletionAndCountsWhatTheServerLacks() async throws {
        // GIVEN a device holding b1, b2 and b3; the server deleted b1 in a transaction that
        // outlived the window, and lost b3 altogether
        let server = OutOfOrderKinto()
        server.put("b1", at: Self.t0 + 100)
        server.put("b2", at: Self.t0 + 200)
        server.put("b3", at: Self.t0 + 300)
        let device = try Device(server)
        _ = await device.sync()
        device.clock.advance(by: .seconds(120))
        _ = await device.sync()
        server.put("b1", at: Self.t0 + 150, deleted: true)
        server.forget("b3")

        // WHEN it reconciles
        let report = await device.sync(reconcile: true)

        // THEN b1 is deleted here, b3 is kept and reported
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(try device.ids() == ["b2", "b3"])
        let found = try #require(report.collections["books"]?.reconciliation)
        #expect(found.deleted == 1)
        #expect(found.absent == 1)
    }

    @Test func aReconciliationIsDueAfterItsIntervalAndAFirstPullCountsAsOne() async throws {
        let server = OutOfOrderKinto()
        server.put("b1", at: Self.t0 + 100)
        let device = try Device(server)
        _ = await device.sync()
        #expect(try device.state.lastReconciled == device.clock.now, "a first pull lists everything")
        device.clock.advance(by: .seconds(3600))
        let soon = await device.sync()
        #expect(soon.collections["books"]?.reconciliation == nil)
        device.clock.advance(by: .seconds(86_400))
        let due = await device.sync()
        #expect(due.collections["books"]?.reconciliation?.listed == 1)
    }
}

// MARK: - CommitWindow

@Suite("Commit window: the rule")
struct CommitWindowTests {
    private let window = CommitWindow(width: .seconds(60))
    private let seen = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aPullStartsFromTheSettledStampOrOneWindowBehindTheCursor() {
        #expect(window.since(SyncState(collection: .books)) == nil)
        #expect(window.since(SyncState(collection: .books, cursor: 100_000)) == 40_000)
        #expect(window.since(SyncState(collection: .books, cursor: 100_000, settled: 90_000)) == 90_000)
        // NB: a settled stamp past the cursor (a recovery reset the cursor) never wins.
        #expect(window.since(SyncState(collection: .books, cursor: 5_000, settled: 90_000)) == 5_000)
        #expect(window.isSettled(SyncState(collection: .books, cursor: 100_000, settled: 100_000)))
        #expect(!window.isSettled(SyncState(collection: .books, cursor: 100_000, settled: 99_999)))
        #expect(!window.isSettled(SyncState(collection: .books, cursor: 100_000)))
    }

    @Test func theServersClockIsTheLaterOfWhatItReportedAndTheLastReadingMovedOn() {
        let previous = ServerClockReading(timestamp: 1_000_000, seenAt: seen)
        #expect(window.serverClock(reported: 1_000_500, previous: previous, sentAt: seen.addingTimeInterval(2)) == 1_002_000)
        #expect(window.serverClock(reported: 1_009_000, previous: previous, sentAt: seen.addingTimeInterval(2)) == 1_009_000)
        // This machine's clock went back: the reading proves nothing.
        #expect(window.serverClock(reported: 1_000_500, previous: previous, sentAt: seen.addingTimeInterval(-30)) == 1_000_500)
        #expect(window.serverClock(reported: nil, previous: nil, sentAt: seen) == nil)
    }

    @Test func theSettledStampNeverGoesBackNorPastTheCursor() {
        // Busy: the server's clock is just past the cursor; one window behind it is settled.
        #expect(window.settled(since: 10_000, cursor: 100_000, serverClock: 100_500) == 40_500)
        // Idle for longer than the window: the cursor itself.
        #expect(window.settled(since: 10_000, cursor: 100_000, serverClock: 200_000) == 100_000)
        // Never behind where the pull started.
        #expect(window.settled(since: 90_000, cursor: 100_000, serverClock: 100_500) == 90_000)
        // A first pull, and a pull that learned nothing of the clock.
        #expect(window.settled(since: nil, cursor: 100_000, serverClock: 100_500) == 40_500)
        #expect(window.settled(since: 10_000, cursor: 100_000, serverClock: nil) == 10_000)
    }

    @Test func hostileTimestampsNeverTrap() {
        #expect(window.since(SyncState(collection: .books, cursor: .min)) == .min)
        #expect(window.settled(since: nil, cursor: .max, serverClock: .min) == .min)
        let previous = ServerClockReading(timestamp: .max, seenAt: seen)
        #expect(window.serverClock(reported: nil, previous: previous, sentAt: seen.addingTimeInterval(10)) == .max)
        #expect(CommitWindow(width: .seconds(Int64.max)).milliseconds == 1_000_000_000_000)
        #expect(CommitWindow(width: .seconds(-5)).milliseconds == 0)
    }
}
