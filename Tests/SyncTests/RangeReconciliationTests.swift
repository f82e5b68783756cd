import Domain
import Foundation
import Records
import Services
import Storage
@testable import Sync
import TestSupport
import Testing

/// Reconciliation by stamp ranges against a server whose commits the test orders
/// (`OutOfOrderKinto`), with a small shape so that a library of 64 books is cut several
/// times over: 4 parts a cut, ranges of at most 3 records listed, a sweep slice of 4.
@Suite("Reconciliation by stamp ranges")
struct RangeReconciliationTests {
    private static let base = "http://127.0.0.1:1/v1"
    private static let t0: Int64 = Int64(SampleShelf.now.timeIntervalSince1970 * 1000)
    private static let shape = ReconciliationShape(fanOut: 4, leafSize: 3, recentMargin: 1_000, sweepSize: 4)

    private struct Device {
        let store: ShelfStore
        let server: OutOfOrderKinto
        let clock = ManualClock()

        init(_ server: OutOfOrderKinto) throws {
            self.store = try ShelfStore.inMemory()
            self.server = server
        }

        func sync(reconcile: Bool = false, pushes: Bool = false, userBucket: String? = nil) async -> RunReport {
            let client = APIClient(configuration: .init(baseURL: RangeReconciliationTests.base, credentials: .init(user: "u", password: "p")),
                                   transport: server.transport)
            var options = SyncOptions(collections: [.books], retry: RetryPolicy(maxAttempts: 1), pushes: pushes)
            options.reconcilesNow = reconcile
            options.reconciliation = RangeReconciliationTests.shape
            options.userBucket = userBucket
            let engine = SyncEngine(account: "test", store: store, client: client, options: options,
                                    clock: SyncClock(now: clock.function, sleep: { _ in }))
            return await engine.run()
        }

        /// Synced, and settled: the window has passed, so pulls ask from the cursor.
        func settle() async {
            _ = await sync()
            clock.advance(by: .seconds(120))
            _ = await sync()
        }

        func ids() throws -> [String] {
            try store.read { try $0.records(RecordQuery(.books)).map(\.id) }.sorted()
        }

        var state: SyncState { get throws { try store.read { try $0.syncState(.books) } } }
    }

    /// 64 books, `b1`…`b64`, stamped a second apart.
    private static func library() -> OutOfOrderKinto {
        let server = OutOfOrderKinto()
        server.putMany((1...64).map { (id: "b\($0)", lastModified: t0 + Int64($0) * 1_000) })
        return server
    }

    private static func reconciliation(_ report: RunReport) throws -> ReconciliationReport {
        try #require(report.collections["books"]?.reconciliation)
    }

    // MARK: - Costs what differs

    @Test func anUnchangedLibraryCostsOneBatchOfCountsAndListings() async throws {
        let device = try Device(Self.library())
        await device.settle()
        let asked = device.server.requests.count

        let report = await device.sync(reconcile: true)

        #expect(report.outcome == .synced, "\(report.message)")
        let found = try Self.reconciliation(report)
        #expect(found.fetched == 0 && found.deleted == 0 && found.absent == 0)
        #expect(found.rangesCounted == 4, "the older records, counted in four parts")
        #expect(found.rangesDiffering == 0)
        #expect(found.listed == 5, "the sweep's slice (4) and the records since the last one (1)")
        #expect(device.server.requests.count - asked == 2, "the pull and one POST /batch")
        #expect(try device.state.reconcilingFrom == nil)
        #expect(try device.state.reconciledThrough == Self.t0 + 64_000)
        #expect(try device.state.sweptThrough == Self.t0 + 4_000, "the next slice starts after this one")
    }

    @Test func aMissingRecordDeepInTheOlderRangesIsFoundAndFetchedAlone() async throws {
        // GIVEN a settled device, and a record that commits behind everything it pulled
        let server = Self.library()
        let device = try Device(server)
        await device.settle()
        server.put("late", at: Self.t0 + 30_500, title: "Late")
        _ = await device.sync()
        #expect(try !device.ids().contains("late"), "a pull alone does not see it")

        // WHEN it reconciles
        let report = await device.sync(reconcile: true)

        // THEN the ranges around it are cut until one is listed, and only it is fetched
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(try device.ids().contains("late"))
        let found = try Self.reconciliation(report)
        #expect(found.fetched == 1)
        #expect(found.deleted == 0 && found.absent == 0)
        #expect(found.listed < 15, "listed: the sweep, the recent records and one small range, not the library")
        #expect(found.rangesDiffering >= 2)
        #expect(server.asked.contains { $0.contains("in_id=late") })
        #expect(report.collections["books"]?.late == 1)
    }

    @Test func aMissedDeletionIsFoundByTheRowItLeftAtAnOldStamp() async throws {
        // GIVEN a settled device holding b10, deleted on the server by a write that commits behind the cursor
        let server = Self.library()
        let device = try Device(server)
        await device.settle()
        server.put("b10", at: Self.t0 + 40_500, deleted: true)

        // WHEN it reconciles
        let report = await device.sync(reconcile: true)

        // THEN b10's range counts one more here, b10 is looked up by id, and its tombstone applied
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(try !device.ids().contains("b10"))
        #expect(try device.ids().count == 63)
        let found = try Self.reconciliation(report)
        #expect(found.deleted == 1)
        #expect(found.fetched == 0 && found.absent == 0)
    }

    @Test func aRecordTheServerHoldsAtAnOlderStampThanTheStoreGoesBackUp() async throws {
        // GIVEN a settled device holding b40, which the server's database takes back to an
        // older version stamped behind everything (restored, or written behind Kinto's API)
        let server = Self.library()
        let device = try Device(server)
        await device.settle()
        server.put("b40", at: Self.t0 + 10_500, title: "older")
        _ = await device.sync()
        #expect(try device.store.outbox().isEmpty, "a pull alone does not see it")

        // WHEN it reconciles
        let report = await device.sync(reconcile: true)

        // THEN the older version is not taken, and the store's goes back over it
        #expect(report.outcome == .synced, "\(report.message)")
        let found = try Self.reconciliation(report)
        #expect(found.wentBack == 1)
        #expect(found.fetched == 0 && found.deleted == 0)
        let json = try #require(try device.store.read { try $0.record(.books, id: "b40")?.json })
        #expect(String(decoding: json, as: UTF8.self).contains("\"b40\""), "the store keeps its version")
        let waiting = try device.store.outbox()
        #expect(waiting.map(\.recordID) == ["b40"])
        #expect(waiting.first?.baseLastModified == Self.t0 + 10_500, "it goes up over the server's older version")
    }

    @Test func aMissingRecordAndAMissedDeletionAtOnceAreBothFound() async throws {
        // GIVEN a record the device lacks and a deletion it missed, in different parts
        let server = Self.library()
        let device = try Device(server)
        await device.settle()
        server.put("late", at: Self.t0 + 20_500, title: "Late")
        server.put("b50", at: Self.t0 + 50_500, deleted: true)

        // WHEN it reconciles
        let report = await device.sync(reconcile: true)

        // THEN both are applied, though the whole older range counts the same on both sides
        #expect(report.outcome == .synced, "\(report.message)")
        let ids = try device.ids()
        #expect(ids.contains("late") && !ids.contains("b50"))
        #expect(ids.count == 64)
        let found = try Self.reconciliation(report)
        #expect(found.fetched == 1 && found.deleted == 1)
    }

    @Test func differencesWhoseCountsCancelOutAreFoundByTheSweep() async throws {
        // GIVEN a missing record beside a missed deletion in one small range: every count agrees
        let server = Self.library()
        let device = try Device(server)
        await device.settle()
        server.put("late", at: Self.t0 + 40_200, title: "Late")
        server.put("b40", at: Self.t0 + 40_700, deleted: true)

        // WHEN it reconciles day after day
        var passes = 0
        while try device.ids().contains("b40") || !device.ids().contains("late"), passes < 30 {
            let report = await device.sync(reconcile: true)
            #expect(report.outcome == .synced, "\(report.message)")
            passes += 1
        }

        // THEN the sweep's slices reach them, within ⌈older records ÷ slice⌉ passes
        #expect(try device.ids().contains("late"))
        #expect(try !device.ids().contains("b40"))
        #expect(passes > 1, "the counts alone cannot see them")
        #expect(passes <= 16)
    }

    @Test func theUsersBucketIdIsNamedAndARefusalGoesThroughTheAlias() async throws {
        let server = Self.library()
        let device = try Device(server)
        await device.settle()
        server.put("late", at: Self.t0 + 30_500, title: "Late")

        // WHEN it reconciles naming its bucket by an id the server refuses
        server.refuseBucket("b-9f2c")
        let report = await device.sync(reconcile: true, userBucket: "b-9f2c")

        // THEN the round is asked again through `default`, and the rest of the pass goes that way
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(try device.ids().contains("late"))
        #expect(server.asked.contains { $0.contains("/buckets/b-9f2c/collections/books/records?_since=") })
        let throughID = server.asked.filter { $0.contains("/buckets/b-9f2c/") }.count
        #expect(throughID <= Self.shape.fanOut + 2, "one round through the id, then the alias: \(throughID)")

        // AND a bucket id the server serves is used for every count and listing
        server.refuseBucket(nil)
        let before = server.asked.count
        let again = await device.sync(reconcile: true, userBucket: "b-9f2c")
        #expect(again.outcome == .synced, "\(again.message)")
        let counts = server.asked.dropFirst(before).filter { $0.hasPrefix("HEAD ") }
        #expect(!counts.isEmpty && counts.allSatisfy { $0.contains("/buckets/b-9f2c/") }, "\(counts)")
    }

    @Test func aServerWithSmallPagesAnswersALookUpByIdPageAfterPageAndEveryPageIsRead() async throws {
        // GIVEN a settled device, and six records that commit behind everything it pulled,
        // each in another old range, on a server whose pages hold two records (`paginate_by`)
        let server = Self.library()
        let device = try Device(server)
        await device.settle()
        let late = (1...6).map { "late\($0)" }
        for (index, id) in late.enumerated() { server.put(id, at: Self.t0 + Int64(index * 10 + 5) * 1_000 + 500, title: "Late") }
        server.paginate(by: 2)

        // WHEN it reconciles
        let report = await device.sync(reconcile: true)

        // THEN every one of them is fetched, the look-ups by id read to their last page
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(try device.ids().filter { $0.hasPrefix("late") } == late.sorted())
        let found = try Self.reconciliation(report)
        #expect(found.fetched == 6)
        #expect(found.absent == 0)
        #expect(server.asked.contains { $0.contains("in_id=") && $0.contains("_token=") }, "a look-up's Next-Page was followed")
        #expect(try device.state.reconcilingFrom == nil)
    }

    // MARK: - Resumable

    @Test func aRunCutShortContinuesFromTheRangeItReached() async throws {
        // GIVEN a settled device, a record missing deep in the older ranges, and a server
        // that goes away after the reconciliation's first round
        let server = Self.library()
        let device = try Device(server)
        await device.settle()
        server.put("late", at: Self.t0 + 50_500, title: "Late")
        server.failRequests(from: server.requests.count + 2)  // the pull, then one round

        // WHEN the run is cut short
        let cut = await device.sync(reconcile: true)

        // THEN it stored how far it compared, and applied nothing yet
        #expect(cut.outcome == .temporaryFailure, "\(cut.message)")
        let reached = try #require(try device.state.reconcilingFrom)
        #expect(reached > 0, "the ranges before the differing one are compared")
        #expect(try !device.ids().contains("late"))

        // WHEN the server is back and the next run comes, without being asked to reconcile
        server.failRequests(from: nil)
        let before = server.asked.count
        let next = await device.sync()

        // THEN it continues from there, finds the record, and completes the pass
        #expect(next.outcome == .synced, "\(next.message)")
        #expect(try device.ids().contains("late"))
        #expect(try device.state.reconcilingFrom == nil)
        let ranges = server.asked.dropFirst(before).filter { $0.contains("_before=") }
        #expect(!ranges.isEmpty)
        for asked in ranges {
            let since = URLComponents(string: String(asked.split(separator: " ").last ?? ""))?
                .queryItems?.first { $0.name == "_since" }?.value.flatMap(Int64.init)
            #expect((since ?? 0) >= reached, "\(asked) is not behind where the cut run stopped")
        }
    }

    // MARK: - A hostile server

    @Test(arguments: ["0", "1000000000", "-5", "many", nil])
    func countsThatLieNeitherDeleteNorDuplicateAnything(_ lie: String?) async throws {
        // GIVEN a settled device with a waiting edit and a record created here, and a server
        // whose counts are all wrong
        let server = Self.library()
        let device = try Device(server)
        await device.settle()
        try device.store.write { tx in
            _ = try tx.saveLocal(.books, id: "b7", json: Data(#"{"id":"b7","title":"Edited","author_name":"A","finished":false}"#.utf8))
            _ = try tx.saveLocal(.books, id: "mine", json: Data(#"{"id":"mine","title":"Mine","author_name":"A","finished":false}"#.utf8))
        }
        let idsBefore = try device.ids()
        let waitingBefore = try device.store.read { try $0.pendingChanges().count }
        server.answerCounts { _, _, _ in lie }

        // WHEN it reconciles
        let report = await device.sync(reconcile: true)

        // THEN nothing is deleted or fetched twice, the waiting changes wait, and it ends
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(try device.ids() == idsBefore)
        let rows = try device.store.read { try $0.records(RecordQuery(.books)) }
        #expect(Set(rows.map(\.id)).count == rows.count, "one row per id")
        #expect(try device.store.read { try $0.pendingChanges().count } == waitingBefore)
        let found = try Self.reconciliation(report)
        #expect(found.deleted == 0 && found.fetched == 0)
        #expect(report.requests < 40, "bounded by the store's own ranges: \(report.requests)")
    }

    @Test func countsThatHideADifferenceOnlyDelayItUntilTheSweep() async throws {
        // GIVEN a record missing deep in the older ranges, and counts that always agree
        let server = Self.library()
        let device = try Device(server)
        await device.settle()
        server.put("late", at: Self.t0 + 30_500, title: "Late")
        let stored = try device.store.read { try $0.serverLiveCount(.books, in: StampRange(after: 0, before: .max)) }
        #expect(stored == 64)
        server.answerCounts { since, before, _ in
            // NB: what the device holds there, as if nothing were missing
            let after = since ?? 0, below = before ?? .max
            return String((1...64).count { Self.t0 + Int64($0) * 1_000 > after && Self.t0 + Int64($0) * 1_000 < below })
        }

        // WHEN it reconciles once, then until the sweep comes by
        _ = await device.sync(reconcile: true)
        #expect(try !device.ids().contains("late"))
        var passes = 1
        while try !device.ids().contains("late"), passes < 30 {
            _ = await device.sync(reconcile: true)
            passes += 1
        }

        // THEN the sweep lists its slice whole and finds it
        #expect(try device.ids().contains("late"))
        #expect(passes <= 16)
    }
}

// MARK: - The pass, as a value

@Suite("Reconciliation by stamp ranges: the plan")
struct ReconciliationPassTests {
    private let shape = ReconciliationShape(fanOut: 4, leafSize: 3, recentMargin: 100, sweepSize: 10)

    private func pass(_ state: SyncState, cursor: Int64, sweepEnd: Int64? = nil) -> ReconciliationPass {
        ReconciliationPass(state, cursor: cursor, shape: shape, sweepEnd: { _ in sweepEnd }, boundaries: { _ in [] })
    }

    @Test func aStoreThatNeverCompletedOneListsEverything() {
        let plan = pass(SyncState(collection: .books, cursor: 5_000), cursor: 5_000)
        #expect(plan.nextRound(limit: 25) == [RangeCheck(range: StampRange(after: 0, through: 5_000), way: .list)])
    }

    @Test func laterPassesSweepASliceCountTheOlderRecordsAndListTheRecentOnes() {
        let state = SyncState(collection: .books, cursor: 9_000, reconciledThrough: 8_000, sweptThrough: 1_000)
        let plan = pass(state, cursor: 9_000, sweepEnd: 2_000)
        #expect(plan.nextRound(limit: 25) == [
            RangeCheck(range: StampRange(after: 0, through: 1_000), way: .count),
            RangeCheck(range: StampRange(after: 1_000, through: 2_000), way: .list),
            RangeCheck(range: StampRange(after: 2_000, through: 7_900), way: .count),
            RangeCheck(range: StampRange(after: 7_900, through: 9_000), way: .list),
        ])
        #expect(plan.nextSweepStart == 2_000)
        #expect(plan.comparedThrough == 0)
    }

    @Test func theSweepStartsAgainPastTheOlderRecords() {
        let state = SyncState(collection: .books, cursor: 9_000, reconciledThrough: 8_000, sweptThrough: 7_950)
        let plan = pass(state, cursor: 9_000, sweepEnd: 500)
        #expect(plan.nextRound(limit: 25).first == RangeCheck(range: StampRange(after: 0, through: 500), way: .list))
        let last = pass(SyncState(collection: .books, cursor: 9_000, reconciledThrough: 8_000, sweptThrough: 7_000), cursor: 9_000, sweepEnd: nil)
        #expect(last.nextSweepStart == 0, "the slice reached the recent records: round again")
    }

    @Test func aPassCutShortStartsWhereItStopped() {
        let state = SyncState(collection: .books, cursor: 9_000, reconciledThrough: 8_000, reconcilingFrom: 5_000, sweptThrough: 1_000)
        let plan = pass(state, cursor: 9_000, sweepEnd: 2_000)
        #expect(plan.nextRound(limit: 25) == [
            RangeCheck(range: StampRange(after: 5_000, through: 7_900), way: .count),
            RangeCheck(range: StampRange(after: 7_900, through: 9_000), way: .list),
        ])
        #expect(plan.comparedThrough == 5_000)
    }

    @Test func countsDecideWhatARangeLeaves() {
        let plan = pass(SyncState(collection: .books, cursor: 10), cursor: 10)
        let check = RangeCheck(range: StampRange(after: 0, through: 1_000), way: .count)
        #expect(plan.verdict(on: check, local: 40, server: 40) == .agrees)
        #expect(plan.verdict(on: check, local: 40, server: 41) == .cut)
        #expect(plan.verdict(on: check, local: 3, server: 41) == .list, "few here: listed")
        #expect(plan.verdict(on: check, local: 40, server: 2) == .list, "few there: listed")
        #expect(plan.verdict(on: check, local: 40, server: nil) == .list, "no count: listed, as before")
        var deep = check
        deep.depth = 12
        #expect(plan.verdict(on: deep, local: 40, server: 41) == .list)
    }

    @Test func aRangeIsCutAtTheStoresBoundariesIntoRangesThatCoverIt() {
        let plan = pass(SyncState(collection: .books, cursor: 10), cursor: 10)
        let check = RangeCheck(range: StampRange(after: 0, through: 1_000), way: .count, depth: 1)
        let parts = plan.cut(check, at: [250, 250, 600, 2_000])
        #expect(parts.map(\.range) == [
            StampRange(after: 0, through: 250), StampRange(after: 250, through: 600), StampRange(after: 600, through: 1_000),
        ])
        #expect(parts.allSatisfy { $0.way == .count && $0.depth == 2 })
        #expect(plan.cut(check, at: []) == [RangeCheck(range: check.range, way: .list, depth: 1)])
    }

    @Test func aListingThatStopsShortLeavesTheRestAndOneThatDoesNotMoveEnds() {
        let check = RangeCheck(range: StampRange(after: 0, through: 1_000), way: .list)
        let partial = ReconciliationPass.listed(check, highest: 400, morePagesFollow: true)
        #expect(partial.covered == StampRange(after: 0, through: 400))
        #expect(partial.rest == RangeCheck(range: StampRange(after: 400, through: 1_000), way: .list))
        #expect(ReconciliationPass.listed(check, highest: nil, morePagesFollow: true).rest == nil)
        #expect(ReconciliationPass.listed(check, highest: 5_000, morePagesFollow: true).rest == nil, "outside: done")
        #expect(ReconciliationPass.listed(check, highest: 400, morePagesFollow: false).covered == check.range)
    }

    @Test func aSmallLibraryIsCountedInFewParts() {
        let shape = ReconciliationShape()
        #expect(shape.firstCut(records: 1_500) == 1, "counted whole")
        #expect(shape.firstCut(records: 10_000) == 5)
        #expect(shape.firstCut(records: 100_000) == 16)
    }

    @Test func aSweepSliceIsAMonthOfTheCollectionWithinItsBounds() {
        let shape = ReconciliationShape()
        #expect(shape.sweepSize(records: 1_000) == 250, "a small library: its fewest, swept in four passes")
        #expect(shape.sweepSize(records: 10_000) == 333)
        #expect(shape.sweepSize(records: 100_000) == 3_333)
        #expect(shape.sweepSize(records: 1_000_000) == 5_000, "a million: its most, 200 passes")
        #expect(ReconciliationShape(fanOut: 4, leafSize: 3, recentMargin: 0, sweepSize: 7).sweepSize(records: 1_000_000) == 7)
    }

    @Test func answersReplaceTheRoundInOrder() {
        var plan = pass(SyncState(collection: .books, cursor: 9_000, reconciledThrough: 8_000, sweptThrough: 1_000), cursor: 9_000, sweepEnd: 2_000)
        let round = plan.nextRound(limit: 2)
        plan.answered(round, leaving: [[], []])
        #expect(plan.comparedThrough == 2_000)
        let next = plan.nextRound(limit: 25)
        plan.answered(next, leaving: [[RangeCheck(range: StampRange(after: 3_000, through: 3_500), way: .list)], []])
        #expect(plan.comparedThrough == 3_000)
        plan.answered(plan.nextRound(limit: 25), leaving: [[]])
        #expect(plan.isComplete)
        #expect(plan.comparedThrough == 9_000)
    }
}
