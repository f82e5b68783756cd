import Domain
import Foundation
import Services
import Storage
import Testing
@testable import Sync

// MARK: - HistoryGateTests

/// Whether an idle run may trust the bucket's history instead of asking every collection,
/// decided without a store or a server (`HistoryGate`). `HistoryGateSyncTests` runs the same
/// rule through an engine and a real Kinto with `kinto.plugins.history`.
@Suite struct HistoryGateTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let window = CommitWindow.standard

    /// A reading taken at the last full check, `minutes` ago.
    static func reading(cursor: Int64 = 5_000, settled: Int64? = 5_000, fullCheckMinutesAgo minutes: Double = 5) -> BucketHistoryState {
        BucketHistoryState(
            bucket: "b", cursor: cursor, settled: settled, serverClock: ServerClockReading(timestamp: cursor, seenAt: now - 60),
            fullCheckAt: now - minutes * 60)
    }

    /// A collection pulled to `cursor`, settled up to `settled`.
    static func state(_ collection: CollectionName, cursor: Int64 = 1_000, settled: Int64? = 1_000) -> SyncState {
        SyncState(collection: collection, cursor: cursor, lastSuccess: now - 300, settled: settled)
    }

    static let states = [state(.books), state(.notes), SyncState(collection: .products)]

    // MARK: - Whether to ask

    struct AskCase: CustomTestStringConvertible, Sendable {
        let name: String
        let reading: BucketHistoryState?
        var states: [SyncState] = HistoryGateTests.states
        let asks: Bool
        var testDescription: String { name }
    }

    static let askCases: [AskCase] = [
        AskCase(name: "a reading from a full check five minutes ago: asked", reading: reading(), asks: true),
        AskCase(name: "no reading: an ordinary run", reading: nil, asks: false),
        AskCase(name: "the last full check an hour ago: an ordinary run", reading: reading(fullCheckMinutesAgo: 60), asks: false),
        AskCase(name: "a full check 59 minutes ago: asked", reading: reading(fullCheckMinutesAgo: 59), asks: true),
        AskCase(name: "a full check a minute in this machine's future (its clock went back): an ordinary run",
                reading: reading(fullCheckMinutesAgo: -1), asks: false),
        AskCase(name: "a full check a millisecond in the future (the reading's rounding): asked",
                reading: reading(fullCheckMinutesAgo: -0.001 / 60), asks: true),
        AskCase(name: "a history that failed its proof an hour ago: not read", reading: {
                    var r = reading(); r.distrustedUntil = now + 23 * 3600; return r }(), asks: false),
        AskCase(name: "a history that failed its proof a day ago: read again", reading: {
                    var r = reading(); r.distrustedUntil = now - 1; return r }(), asks: true),
        AskCase(name: "a collection never pulled: an ordinary run", reading: reading(),
                states: [state(.books), SyncState(collection: .notes)], asks: false),
        AskCase(name: "a collection recovering: an ordinary run", reading: reading(),
                states: [{ var s = state(.books); s.recovering = true; return s }()], asks: false),
        AskCase(name: "a pull left half-way: an ordinary run", reading: reading(),
                states: [{ var s = state(.books); s.nextPage = "https://k/next"; return s }()], asks: false),
        AskCase(name: "a collection the server refused: an ordinary run", reading: reading(),
                states: [SyncState(collection: .books, lastError: SyncState.unavailablePrefix + "HTTP 403")], asks: false),
        AskCase(name: "the catalog never pulled (another bucket, asked beside): asked", reading: reading(),
                states: [state(.books), SyncState(collection: .products, lastError: SyncState.unavailablePrefix + "HTTP 403")], asks: true),
    ]

    @Test(arguments: askCases)
    func whetherToAsk(_ example: AskCase) {
        #expect(HistoryGate.mayAsk(example.reading, states: example.states, now: Self.now) == example.asks)
    }

    @Test func theReadStartsWhereTheHistoryIsSettledOrOneWindowBehindItsCursor() {
        #expect(HistoryGate.since(Self.reading(cursor: 5_000, settled: 4_200), window: Self.window) == 4_200)
        #expect(HistoryGate.since(Self.reading(cursor: 90_000, settled: nil), window: Self.window) == 30_000)
    }

    // MARK: - The verdict

    struct VerdictCase: CustomTestStringConvertible, Sendable {
        let name: String
        let changes: [BucketChange]
        var covered: [String: Int64] = [:]
        var held: [CollectionName: [String: Int64]] = [:]
        var timestamp: Int64? = 6_000
        var more = false
        let quiet: Bool
        var testDescription: String { name }
    }

    static func record(_ collection: String, _ id: String, version: Int64?, stamp: Int64 = 5_500) -> BucketChange {
        BucketChange(id: "h-\(collection)-\(id)-\(stamp)", stamp: stamp, resource: "record", collection: collection, recordID: id, version: version)
    }

    static let verdictCases: [VerdictCase] = [
        VerdictCase(name: "no entry since the last read", changes: [], quiet: true),
        VerdictCase(name: "this device's own push, held in that version", changes: [record("books", "b1", version: 1_500)],
                    held: [.books: ["b1": 1_500]], quiet: true),
        VerdictCase(name: "an older version of a record held newer", changes: [record("books", "b1", version: 1_400)],
                    held: [.books: ["b1": 1_500]], quiet: true),
        VerdictCase(name: "a change stamped where its collection is settled", changes: [record("notes", "n1", version: 900)], quiet: true),
        VerdictCase(name: "another device's change", changes: [record("books", "b2", version: 1_600)], quiet: false),
        VerdictCase(name: "a newer version than the one held", changes: [record("books", "b1", version: 1_600)],
                    held: [.books: ["b1": 1_500]], quiet: false),
        VerdictCase(name: "a change past where the collection is settled, not held",
                    changes: [record("books", "b3", version: 1_001)], quiet: false),
        VerdictCase(name: "the keyring rewritten", changes: [record("shelf-keys", "keyring", version: 1_600)], quiet: false),
        VerdictCase(name: "a collection object rewritten",
                    changes: [BucketChange(id: "h-c", stamp: 5_500, resource: "collection", collection: "books", version: 1_600)], quiet: false),
        VerdictCase(name: "a record of a collection Shelf does not sync", changes: [record("photos", "p1", version: 10)], quiet: false),
        VerdictCase(name: "the catalog (another bucket's) named in this one", changes: [record("products", "p1", version: 10)], quiet: false),
        VerdictCase(name: "a record change without its version", changes: [record("books", "b1", version: nil)],
                    held: [.books: ["b1": 1_500]], quiet: false),
        VerdictCase(name: "a collection this run does not sync", changes: [record("tasks", "t1", version: 10)], quiet: false),
        VerdictCase(name: "more entries than a page", changes: [record("books", "b1", version: 1_500)],
                    held: [.books: ["b1": 1_500]], more: true, quiet: false),
        VerdictCase(name: "a history whose timestamp went back behind the cursor", changes: [], timestamp: 4_999, quiet: false),
        VerdictCase(name: "a collection created before the last full check, which read it",
                    changes: [BucketChange(id: "h-c", stamp: 5_500, resource: "collection", collection: "books")],
                    covered: ["h-c": 5_500], quiet: true),
        VerdictCase(name: "another device's change read before the full check that pulled it",
                    changes: [record("books", "b2", version: 1_600)], covered: ["h-books-b2-5500": 5_500], quiet: true),
        VerdictCase(name: "an entry of the same id at another stamp is not the one read",
                    changes: [BucketChange(id: "h-c", stamp: 5_600, resource: "collection", collection: "books")],
                    covered: ["h-c": 5_500], quiet: false),
        VerdictCase(name: "a full page of known entries (the rest may be trimmed away)",
                    changes: (1...100).map { record("books", "b1", version: 1_500, stamp: 5_000 + Int64($0)) },
                    held: [.books: ["b1": 1_500]], quiet: false),
        VerdictCase(name: "one unknown entry among known ones",
                    changes: [record("books", "b1", version: 1_500), record("notes", "n2", version: 2_000)],
                    held: [.books: ["b1": 1_500]], quiet: false),
    ]

    @Test(arguments: verdictCases)
    func theVerdict(_ example: VerdictCase) {
        let page = BucketHistoryPage(changes: example.changes, timestamp: example.timestamp, morePagesFollow: example.more)
        let states = Dictionary(uniqueKeysWithValues: [Self.state(.books), Self.state(.notes)].map { ($0.collection, $0) })
        var reading = Self.reading()
        reading.covered = example.covered
        let verdict = HistoryGate.verdict(page, reading: reading, states: states, held: example.held)
        #expect((verdict == .quiet) == example.quiet, "\(verdict)")
    }

    // MARK: - The proof

    struct ProofCase: CustomTestStringConvertible, Sendable {
        let name: String
        let changes: [BucketChange]
        let verdict: String
        var testDescription: String { name }
    }

    static let proof = BucketHistoryState.Proof(collection: "books", id: "b1", version: 1_500)

    static let proofCases: [ProofCase] = [
        ProofCase(name: "the write is shown: quiet", changes: [record("books", "b1", version: 1_500)], verdict: "quiet"),
        ProofCase(name: "no entry at all: the server does not record this bucket", changes: [], verdict: "untrusted"),
        ProofCase(name: "an earlier version of the record only", changes: [record("books", "b1", version: 1_400)], verdict: "untrusted"),
        ProofCase(name: "the same version in another collection", changes: [record("notes", "b1", version: 1_500)], verdict: "untrusted"),
        ProofCase(name: "the write and another device's change: news", changes: [
            record("books", "b1", version: 1_500), record("books", "b9", version: 1_700)], verdict: "news"),
    ]

    @Test(arguments: proofCases)
    func aWriteOfThisDevicesMustBeShown(_ example: ProofCase) {
        var reading = Self.reading()
        reading.proof = Self.proof
        let page = BucketHistoryPage(changes: example.changes, timestamp: 6_000, morePagesFollow: false)
        let states = Dictionary(uniqueKeysWithValues: [Self.state(.books), Self.state(.notes)].map { ($0.collection, $0) })
        let verdict = HistoryGate.verdict(page, reading: reading, states: states, held: [.books: ["b1": 1_500]])
        let name = switch verdict {
        case .quiet: "quiet"
        case .news: "news"
        case .untrusted: "untrusted"
        }
        #expect(name == example.verdict, "\(verdict)")
    }

    @Test func aQuietReadTakesTheProofAsShown() {
        var before = Self.reading()
        before.proof = Self.proof
        let page = BucketHistoryPage(changes: [Self.record("books", "b1", version: 1_500)], timestamp: 6_000, morePagesFollow: false)
        #expect(HistoryGate.reading(after: page, from: before, sentAt: Self.now, window: Self.window, now: Self.now).proof == nil)
    }

    @Test func theLookupsAreTheRecordChangesOfTheReadersCollections() {
        let page = BucketHistoryPage(changes: [
            Self.record("books", "b1", version: 1), Self.record("books", "b2", version: 2), Self.record("books", "b1", version: 3),
            Self.record("shelf-keys", "keyring", version: 4), Self.record("products", "p1", version: 5),
            BucketChange(id: "h-c", stamp: 1, resource: "collection", collection: "notes"),
        ], timestamp: 10, morePagesFollow: false)
        #expect(HistoryGate.lookups(page) == [.books: ["b1", "b2"]])
    }

    @Test func aFullPageNeedsNoLookupAndIsNews() {
        // GIVEN more entries than asked for, every one of them held
        let page = BucketHistoryPage(
            changes: (1...150).map { Self.record("books", "b\($0)", version: 1_500, stamp: 5_000 + Int64($0)) }, timestamp: 6_000,
            morePagesFollow: false)
        let held = Dictionary(uniqueKeysWithValues: (1...150).map { ("b\($0)", Int64(1_500)) })

        // THEN nothing is looked up for it, and it is news all the same
        #expect(HistoryGate.lookups(page).isEmpty)
        let states = [CollectionName.books: Self.state(.books)]
        #expect(HistoryGate.verdict(page, reading: Self.reading(), states: states, held: [.books: held]) != .quiet)
    }

    // MARK: - The reading kept

    @Test func aQuietReadMovesTheCursorToTheNewestEntryAndSettlesBehindTheServersClock() {
        // GIVEN a reading at 5,000 whose clock was seen 60 s ago
        let before = Self.reading(cursor: 5_000, settled: 5_000)
        let page = BucketHistoryPage(changes: [Self.record("books", "b1", version: 1, stamp: 70_000)], timestamp: 70_000, morePagesFollow: false)

        // WHEN the read sent now found an entry stamped 70,000
        let after = HistoryGate.reading(after: page, from: before, sentAt: Self.now, window: Self.window, now: Self.now)

        // THEN the cursor is the entry's stamp, and settled is one window behind the clock (≥ 70,000)
        #expect(after.cursor == 70_000)
        #expect(after.settled == 10_000)
        #expect(after.serverClock == ServerClockReading(timestamp: 70_000, seenAt: Self.now))
        #expect(after.fullCheckAt == before.fullCheckAt, "a quiet read is no full check")
    }

    @Test func entriesReadBeforeAFullCheckAreForgottenOnceTheReadStartsPastThem() {
        // GIVEN a fresh reading that covers two entries, then a quiet read two minutes on
        var before = Self.reading(cursor: 100_000, settled: nil)
        before.covered = ["old": 30_000, "recent": 100_000]
        (before.clockTimestamp, before.clockSeenAt) = (100_000, Self.now - 120)
        let page = BucketHistoryPage(changes: [], timestamp: 100_000, morePagesFollow: false)

        let after = HistoryGate.reading(after: page, from: before, sentAt: Self.now, window: Self.window, now: Self.now)

        // THEN everything up to the cursor is settled, and no read returns either entry again
        #expect(after.settled == 100_000)
        #expect(after.covered.isEmpty)

        // AND one read earlier, only the entry the next read still reaches is kept
        (before.clockTimestamp, before.clockSeenAt) = (100_000, Self.now)
        let soon = HistoryGate.reading(after: page, from: before, sentAt: Self.now, window: Self.window, now: Self.now)
        #expect(soon.settled == 40_000)
        #expect(soon.covered == ["recent": 100_000])
    }

    @Test func aQuietReadWithNoEntryLetsTheCursorSettleAsTimePasses() {
        // GIVEN a reading whose clock was seen at 5,000 two minutes ago, settled at 1,000
        var before = Self.reading(cursor: 5_000, settled: 1_000)
        (before.clockTimestamp, before.clockSeenAt) = (5_000, Self.now - 120)
        let page = BucketHistoryPage(changes: [], timestamp: 5_000, morePagesFollow: false)

        let after = HistoryGate.reading(after: page, from: before, sentAt: Self.now, window: Self.window, now: Self.now)

        // THEN the clock has moved on 120 s, so every entry up to the cursor is settled
        #expect(after.cursor == 5_000)
        #expect(after.settled == 5_000)
    }

    @Test func aFreshReadingStartsAtTheHistorysTimestampAndKnowsTheEntriesRead() throws {
        let page = BucketHistoryPage(changes: [Self.record("books", "b1", version: 1, stamp: 8_000)], timestamp: 9_000, morePagesFollow: false)
        let fresh = try #require(HistoryGate.fresh(bucket: "b", page: page, now: Self.now))
        #expect(fresh.cursor == 9_000)
        #expect(fresh.covered == ["h-books-b1-8000": 8_000])
        #expect(fresh.settled == nil, "the next read reaches one window behind it")
        #expect(fresh.fullCheckAt == Self.now)
        #expect(HistoryGate.fresh(bucket: "b", page: BucketHistoryPage(changes: [], timestamp: nil, morePagesFollow: false), now: Self.now) == nil)
    }

    @Test func aFreshReadingKnowsAtMostAPageOfEntries() throws {
        // GIVEN a server that sent 150 entries where 100 were asked for
        let page = BucketHistoryPage(
            changes: (1...150).map { Self.record("books", "b\($0)", version: 1, stamp: 8_000 + Int64($0)) }, timestamp: 9_000,
            morePagesFollow: false)

        let fresh = try #require(HistoryGate.fresh(bucket: "b", page: page, now: Self.now))

        // THEN the reading keeps the first hundred: the rest are news to the next read
        #expect(fresh.covered.count == HistoryGate.pageLimit)
        #expect(fresh.covered["h-books-b1-8001"] == 8_001)
        #expect(fresh.covered["h-books-b150-8150"] == nil)
    }
}
