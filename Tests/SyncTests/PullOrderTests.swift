import Domain
import Foundation
import Services
import Storage
import Sync
import Synchronization
import TestSupport
import Testing

/// The order of a first sync's requests, against a scripted server whose pages wait at
/// gates the test opens.
@Suite("Pull order")
struct PullOrderTests {
    private static let base = "http://127.0.0.1:1/v1"

    private static func json(_ text: String, headers: [(String, String)] = [], url: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json")] + headers), body: Data(text.utf8), url: url)
    }

    private static func page(_ collection: String, ids: [String], from: Int) -> String {
        let records = ids.enumerated().map { offset, id in
            #"{"id":"\#(id)","title":"\#(collection) \#(id)","author_name":"A","finished":false,"done":false,"last_modified":\#(from + offset)}"#
        }
        return #"{"data":[\#(records.joined(separator: ","))]}"#
    }

    private func engine(_ transport: FakeHTTPTransport, store: ShelfStore, collections: [CollectionName]) -> SyncEngine {
        let client = APIClient(configuration: .init(baseURL: Self.base, credentials: .init(user: "u", password: "p")), transport: transport)
        return SyncEngine(
            account: "test", store: store, client: client,
            options: SyncOptions(collections: collections, retry: RetryPolicy(maxAttempts: 1)),
            clock: SyncClock(now: { Date(timeIntervalSince1970: 1_800_000_000) }, sleep: { _ in }))
    }

    @Test func theOtherCollectionsAreAskedForWhileTheFirstIsStillBeingPulled() async throws {
        // GIVEN books in two pages and small notes and tasks lists, all but books' first
        // page held at gates
        let secondBooksPage = SuspensionGate<Void>()
        let smallLists = SuspensionGate<Void>()
        let transport = FakeHTTPTransport { request in
            let url = request.url
            if url.contains("/collections/books/") {
                if url.contains("_token=") {
                    try await secondBooksPage.pass()
                    return Self.json(Self.page("books", ids: ["b3"], from: 30), headers: [("ETag", "\"30\"")], url: url)
                }
                let next = Self.base + "/buckets/default/collections/books/records?_limit=10000&_sort=last_modified&_token=2"
                return Self.json(Self.page("books", ids: ["b1", "b2"], from: 10), headers: [("ETag", "\"30\""), ("Next-Page", next)], url: url)
            }
            try await smallLists.pass()
            if url.contains("/collections/notes/") {
                return Self.json(#"{"data":[{"id":"n1","title":"Note","body":"","book_id":null,"last_modified":7}]}"#, headers: [("ETag", "\"7\"")], url: url)
            }
            return Self.json(Self.page("tasks", ids: ["t1"], from: 5), headers: [("ETag", "\"5\"")], url: url)
        }
        let store = try ShelfStore.inMemory()
        let run = Task { await engine(transport, store: store, collections: [.books, .notes, .tasks]).run() }

        // WHEN books' first page has been answered and its second is on its way
        await secondBooksPage.arrival()
        await smallLists.arrival(count: 2)

        // THEN notes and tasks were asked for meanwhile, only after books' first answer
        let asked = transport.requests.map(\.url)
        #expect(asked.count == 4, "\(asked)")
        #expect(asked.first.map { $0.contains("/collections/books/") && !$0.contains("_token=") } == true)
        #expect(asked.contains { $0.contains("/collections/notes/") })
        #expect(asked.contains { $0.contains("/collections/tasks/") })
        #expect(try store.read { try $0.count(RecordQuery(.notes)) } == 0)

        // WHEN the answers arrive, everything is stored in those four requests
        await smallLists.open(with: ())
        await secondBooksPage.open(with: ())
        let report = await run.value
        #expect(report.outcome == .synced, "\(report.message)")
        // …and one more, once every collection is in: the collection objects' timestamps
        #expect(report.requests == 5)
        #expect(transport.requests.count == 5)
        #expect(transport.requests.last?.url.hasSuffix("/buckets/default/collections") == true)
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 3)
        #expect(try store.record(.notes, id: "n1") != nil)
        #expect(try store.record(.tasks, id: "t1") != nil)
        #expect(try store.read { try $0.syncState(.tasks) }.cursor == 5)
    }

    @Test func aTransientFailureOfAnEarlyRequestIsAskedAgainWithRetries() async throws {
        // GIVEN a server whose first answer for tasks is a 503
        let taskCalls = Mutex(0)
        let transport = FakeHTTPTransport { request in
            let url = request.url
            if url.contains("/collections/tasks/") {
                let call = taskCalls.withLock { $0 += 1; return $0 }
                if call == 1 {
                    return HTTPResponse(status: 503, headers: HTTPHeaders([("Content-Type", "application/json")]),
                                        body: Data(#"{"code":503,"errno":201,"error":"Service Unavailable","message":"flaky"}"#.utf8), url: url)
                }
                return Self.json(Self.page("tasks", ids: ["t1"], from: 5), headers: [("ETag", "\"5\"")], url: url)
            }
            return Self.json(Self.page("books", ids: ["b1"], from: 10), headers: [("ETag", "\"10\"")], url: url)
        }
        let store = try ShelfStore.inMemory()
        let client = APIClient(configuration: .init(baseURL: Self.base, credentials: .init(user: "u", password: "p")), transport: transport)
        let sync = SyncEngine(
            account: "test", store: store, client: client,
            options: SyncOptions(collections: [.books, .tasks], retry: RetryPolicy(maxAttempts: 2)),
            clock: SyncClock(now: { Date(timeIntervalSince1970: 1_800_000_000) }, sleep: { _ in }))

        // WHEN it syncs
        let report = await sync.run()

        // THEN the tasks list was asked for again and stored
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(taskCalls.withLock { $0 } == 2)
        #expect(report.requests == 4)  // and the collection objects' timestamps
        #expect(try store.record(.tasks, id: "t1") != nil)
    }

    @Test func aCollisionOfEarlyRequestsOnANewAccountIsAskedAgainAlone() async throws {
        // GIVEN a new account whose server answers the concurrent first request for
        // notes with Kinto's 409 "please retry" (both tried to create their collection)
        let noteCalls = Mutex(0)
        let transport = FakeHTTPTransport { request in
            let url = request.url
            if url.contains("/collections/notes/") {
                let call = noteCalls.withLock { $0 += 1; return $0 }
                if call == 1 {
                    return HTTPResponse(
                        status: 409, headers: HTTPHeaders([("Content-Type", "application/json"), ("Retry-After", "3")]),
                        body: Data(#"{"code":409,"errno":122,"error":"Conflict","message":"Integrity constraint violated, please retry."}"#.utf8),
                        url: url)
                }
                return Self.json(#"{"data":[]}"#, headers: [("ETag", "\"1\"")], url: url)
            }
            return Self.json(Self.page("books", ids: ["b1"], from: 10), headers: [("ETag", "\"10\"")], url: url)
        }
        let store = try ShelfStore.inMemory()

        // WHEN it syncs
        let report = await engine(transport, store: store, collections: [.books, .notes, .tasks]).run()

        // THEN notes was asked again in its turn, and the run ends synced
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(noteCalls.withLock { $0 } == 2)
        #expect(report.requests == 5)  // and the collection objects' timestamps
        #expect(try store.read { try $0.syncState(.notes) }.lastSuccess != nil)
    }
}
