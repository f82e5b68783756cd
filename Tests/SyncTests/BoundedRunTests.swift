import Domain
import Foundation
import Services
import Storage
import Sync
import Synchronization
import TestSupport
import Testing

/// The engine's own bounds, against a fake transport: pages per run, paging that does
/// not advance, a run's time budget, stored deadlines beyond the maximum wait, and the
/// account lock released on every path.
@Suite("Bounded runs")
struct BoundedRunTests {
    private static let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func engine(
        _ transport: FakeHTTPTransport, store: ShelfStore? = nil, clock: SyncClock = SyncClock(now: { Self.now }, sleep: { _ in }),
        _ change: (inout SyncOptions) -> Void = { _ in }
    ) throws -> SyncEngine {
        var options = SyncOptions(collections: [.books], retry: .none)
        change(&options)
        let client = APIClient(configuration: .init(baseURL: "http://127.0.0.1:1/v1", credentials: .init(user: "u", password: "p")), transport: transport)
        return SyncEngine(
            account: "test", store: try store ?? ShelfStore.inMemory(), client: client, options: options,
            clock: clock)
    }

    /// A page of one record at `lastModified`, with a `Next-Page` unless `next` is nil.
    private static func page(_ request: HTTPRequest, lastModified: Int, next: String?) -> HTTPResponse {
        var headers: [(String, String)] = [("Content-Type", "application/json")]
        if let next { headers.append(("Next-Page", "http://127.0.0.1:1/v1/buckets/default/collections/books/records?_token=\(next)")) }
        let body = #"{"data":[{"id":"b\#(lastModified)","last_modified":\#(lastModified),"title":"T","author_name":"A","finished":false}]}"#
        return HTTPResponse(status: 200, headers: HTTPHeaders(headers), body: Data(body.utf8), url: request.url)
    }

    struct PagesCase: Sendable, CustomTestStringConvertible {
        let name: String
        let maximumPages: Int
        let serverPages: Int
        let outcome: RunOutcome
        var testDescription: String { name }
    }

    static let pages: [PagesCase] = [
        PagesCase(name: "3 pages, maximum 5", maximumPages: 5, serverPages: 3, outcome: .synced),
        PagesCase(name: "endless pages, maximum 5", maximumPages: 5, serverPages: .max, outcome: .temporaryFailure),
        PagesCase(name: "5 pages, maximum 5", maximumPages: 5, serverPages: 5, outcome: .synced),
    ]

    /// A run pulls at most `maximumPages` pages, then stops with a clear message; what
    /// it pulled is stored and the cursor says where the next run goes on.
    @Test(arguments: pages)
    func aRunPullsAtMostItsMaximumOfPages(_ pages: PagesCase) async throws {
        let count = Mutex(0)
        let transport = FakeHTTPTransport { request in
            let index = count.withLock { $0 += 1; return $0 }
            return Self.page(request, lastModified: 100 + index, next: index < pages.serverPages ? "t\(index)" : nil)
        }
        let store = try ShelfStore.inMemory()
        let report = try await engine(transport, store: store) { $0.maximumPages = pages.maximumPages }.run()
        #expect(report.outcome == pages.outcome, "\(report.message)")
        #expect(transport.requests.count <= pages.maximumPages + 1)
        if pages.outcome != .synced {
            #expect(report.message.contains("pulled \(pages.maximumPages) pages in one run"))
            #expect(try store.read { try $0.syncState(.books).cursor } == Int64(100 + pages.maximumPages))
        }
    }

    /// A pull follows a `Next-Page` only on its own list: one that leads to another
    /// collection's records stops the run before anything of that list is asked for or stored.
    @Test func aNextPageToAnotherCollectionIsNotFollowed() async throws {
        let transport = FakeHTTPTransport { request in
            var headers: [(String, String)] = [("Content-Type", "application/json")]
            if request.url.contains("/collections/books/") {
                headers.append(("Next-Page", "http://127.0.0.1:1/v1/buckets/default/collections/notes/records?_token=n"))
            }
            let body = #"{"data":[{"id":"b1","last_modified":101,"title":"T","author_name":"A","finished":false}]}"#
            return HTTPResponse(status: 200, headers: HTTPHeaders(headers), body: Data(body.utf8), url: request.url)
        }
        let store = try ShelfStore.inMemory()
        let report = try await engine(transport, store: store).run()
        #expect(report.outcome == .temporaryFailure, "\(report.message)")
        #expect(report.message.contains("leads to another list"), "\(report.message)")
        #expect(!transport.requests.contains { $0.url.contains("/collections/notes/") })
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 0, "the page that named it is not stored")
    }

    /// A transport whose requests never answer until cancelled: each waits at `inFlight`,
    /// and `cancelled` records the ones cancelled.
    private static func neverAnswering() -> (FakeHTTPTransport, inFlight: SuspensionGate<Void>, cancelled: CallLog<Bool>) {
        let cancelled = CallLog<Bool>()
        let inFlight = SuspensionGate<Void>()
        let transport = FakeHTTPTransport { _ in
            do {
                try await inFlight.pass()
            } catch {
                cancelled.record(true)
                throw error
            }
            throw CancellationError()
        }
        return (transport, inFlight, cancelled)
    }

    /// A run whose budget runs out stops at once as a temporary failure naming the
    /// budget — here against a transport that never answers until cancelled. The budget
    /// is timed by the injected clock: it runs out when the test advances it past 0.2 s,
    /// once the request is in flight and the timer waits.
    @Test func aRunEndsWhenItsBudgetRunsOut() async throws {
        let (transport, inFlight, cancelled) = Self.neverAnswering()
        let clock = ManualClock(Self.now)
        let bounded = try engine(transport, clock: clock.clock) { $0.budget = .milliseconds(200) }
        let run = Task { await bounded.run() }
        await inFlight.arrival()
        await clock.sleepStarted()
        clock.advance(by: .milliseconds(199))
        #expect(cancelled.values.isEmpty, "the budget has not run out yet")
        clock.advance(by: .milliseconds(1))
        let report = await run.value
        #expect(cancelled.values == [true], "the budget cancelled the request in flight")
        #expect(report.outcome == .temporaryFailure)
        #expect(report.message.contains("budget of 0.2 s"), "\(report.message)")
    }

    /// The run lives in a task of its own (`SyncEngine.run`): cancelling its caller
    /// cancels it, request in flight included, and the run ends saying so.
    @Test func cancellingTheCallerCancelsTheRunsTask() async throws {
        let (transport, inFlight, cancelled) = Self.neverAnswering()
        let engine = try engine(transport)
        let run = Task { await engine.run() }
        await inFlight.arrival()
        run.cancel()
        let report = await run.value
        #expect(cancelled.values == [true], "the request in flight was cancelled")
        #expect(report.outcome == .temporaryFailure)
        #expect(report.message == "the run was cancelled", "\(report.message)")
    }

    struct StoredDeadlineCase: Sendable, CustomTestStringConvertible {
        let name: String
        let stored: Date
        let ignores: Bool
        let outcome: RunOutcome
        var testDescription: String { name }
    }

    static let deadlines: [StoredDeadlineCase] = [
        StoredDeadlineCase(name: "year 9999 in the store", stored: Date(timeIntervalSince1970: 253_402_300_799), ignores: false, outcome: .backoff),
        StoredDeadlineCase(name: "far past Int64 milliseconds", stored: Date(timeIntervalSince1970: 1e300), ignores: false, outcome: .backoff),
        StoredDeadlineCase(name: "year 9999, --ignore-backoff", stored: Date(timeIntervalSince1970: 253_402_300_799), ignores: true, outcome: .synced),
        StoredDeadlineCase(name: "passed deadline", stored: now.addingTimeInterval(-1), ignores: false, outcome: .synced),
    ]

    /// A deadline in the store — however far out, even one an older version wrote —
    /// holds for a day at most; `--ignore-backoff` runs anyway; a successful run clears it.
    @Test(arguments: deadlines)
    func aStoredDeadlineHoldsForADayAtMost(_ deadline: StoredDeadlineCase) async throws {
        let store = try ShelfStore.inMemory()
        try store.write { tx in try tx.updateSyncState(.books) { $0.backoffUntil = deadline.stored } }
        let transport = FakeHTTPTransport { request in
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"data":[]}"#.utf8), url: request.url)
        }
        let report = try await engine(transport, store: store) { $0.ignoresBackoff = deadline.ignores }.run()
        #expect(report.outcome == deadline.outcome, "\(report.message)")
        if deadline.outcome == .backoff {
            let until = try #require(report.backoffUntil)
            #expect(until <= Self.now.addingTimeInterval(HeaderValues.maximumWait))
            #expect(transport.requests.isEmpty)
        } else {
            #expect(try store.read { try $0.syncState(.books).backoffUntil } == nil)
        }
    }

    /// A `Backoff` met during a `--ignore-backoff` run does not stop it, and is kept for
    /// the runs after it.
    @Test func anIgnoredBackoffIsStillStored() async throws {
        let store = try ShelfStore.inMemory()
        let transport = FakeHTTPTransport { request in
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json", "Backoff": "9223372036854775807"],
                         body: Data(#"{"data":[]}"#.utf8), url: request.url)
        }
        let report = try await engine(transport, store: store) { $0.ignoresBackoff = true }.run()
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(try store.read { try $0.syncState(.books).backoffUntil } == Self.now.addingTimeInterval(HeaderValues.maximumWait))
    }

    /// The account's lock is released however the run ends — a paging loop included.
    @Test func theLockIsReleasedAfterAPagingLoop() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-lock-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let lockFile = folder.appendingPathComponent("test.lock")
        let transport = FakeHTTPTransport { request in Self.page(request, lastModified: 100, next: "same") }
        let refresher = SyncRefresher(engine: try engine(transport), lockFile: lockFile)
        await #expect(throws: SyncRunError.self) { try await refresher.refresh(.books) }
        let lock = try #require(try RunLock.acquire(at: lockFile), "the lock is free again")
        lock.release()
    }
}
