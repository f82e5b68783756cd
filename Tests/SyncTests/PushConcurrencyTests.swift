import Domain
import Foundation
import Services
import Storage
import Sync
import Synchronization
import TestSupport
import Testing

/// Push batches in flight beside each other, against a scripted `/batch` endpoint whose
/// answers wait at gates the test opens: batches of different collections overlap, a
/// collection never has two, and a record's next change waits for its earlier one's answer.
/// A regression here shows as a request that never reaches its gate: the time limit
/// turns that wait into a failure.
@Suite("Push concurrency", .timeLimit(.minutes(1)))
struct PushConcurrencyTests {
    // MARK: A small Kinto: records by path, timestamps from one counter

    /// Answers `POST /batch` like Kinto: a PUT stores the record (or, with
    /// `If-None-Match: *` on an existing one, answers 412 carrying it), a DELETE leaves a
    /// tombstone. `rollBackFirstBatch` answers the first batch's last write with a 409
    /// and rolls that batch back, earlier 201s included, as Kinto does on a timestamp clash.
    /// NB: `@unchecked` is sound: `state` (JSON objects, which are not `Sendable`) is
    /// only read or written inside `lock.withLock`.
    final class BatchServer: @unchecked Sendable {
        struct State {
            var records: [String: [String: Any]] = [:]
            /// Every timestamp each record was stored with, in order.
            var stamps: [String: [Int]] = [:]
            var clock = 100
            var batches = 0
        }
        private let lock = NSLock()
        private var state = State()
        let rollBackFirstBatch: Bool

        init(rollBackFirstBatch: Bool = false) { self.rollBackFirstBatch = rollBackFirstBatch }

        /// Stored record ids (not deleted), by collection.
        func ids(_ collection: String) -> Set<String> {
            lock.withLock { [self] in
                Set(state.records.filter { $0.key.contains("/collections/\(collection)/") && $0.value["deleted"] == nil }
                    .compactMap { $0.value["id"] as? String })
            }
        }

        func stamps(_ collection: String, id: String) -> [Int] {
            lock.withLock { state.stamps["/buckets/default/collections/\(collection)/records/\(id)"] ?? [] }
        }

        func record(_ collection: String, id: String) -> [String: Any]? {
            lock.withLock { state.records["/buckets/default/collections/\(collection)/records/\(id)"] }
        }

        func answer(_ request: HTTPRequest) throws -> HTTPResponse {
            let body = try #require(request.body)
            let parsed = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            let subs = try #require(parsed["requests"] as? [[String: Any]])
            let data: Data = try lock.withLock { [self] in
                state.batches += 1
                let before = state.records
                var responses: [[String: Any]] = []
                for (index, sub) in subs.enumerated() {
                    let path = sub["path"] as? String ?? ""
                    let headers = sub["headers"] as? [String: String] ?? [:]
                    let existing = state.records[path].flatMap { $0["deleted"] == nil ? $0 : nil }
                    if rollBackFirstBatch, state.batches == 1, index == subs.count - 1 {
                        state.records = before
                        responses.append(["status": 409, "path": "/v1" + path, "headers": ["Retry-After": "3"],
                                          "body": ["code": 409, "errno": 122, "error": "Conflict", "message": "Integrity constraint violated, please retry."]])
                        continue
                    }
                    if headers["If-None-Match"] == "*", let existing {
                        responses.append(["status": 412, "path": "/v1" + path, "headers": [:],
                                          "body": ["code": 412, "errno": 114, "error": "Precondition Failed", "message": "exists", "details": ["existing": existing]]])
                        continue
                    }
                    state.clock += 1
                    let id = String(path.split(separator: "/").last ?? "")
                    var record: [String: Any]
                    if (sub["method"] as? String) == "DELETE" {
                        record = ["id": id, "deleted": true]
                    } else {
                        record = ((sub["body"] as? [String: Any])?["data"] as? [String: Any]) ?? [:]
                        record["id"] = id
                    }
                    record["last_modified"] = state.clock
                    state.records[path] = record
                    state.stamps[path, default: []].append(state.clock)
                    responses.append(["status": existing == nil ? 201 : 200, "path": "/v1" + path, "headers": [:], "body": ["data": record]])
                }
                return try JSONSerialization.data(withJSONObject: ["responses": responses])
            }
            return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: data, url: request.url)
        }
    }

    // MARK: Helpers

    /// The collections a batch request writes to, from its sub-requests' paths.
    static func collections(of request: HTTPRequest) -> Set<String> {
        guard let body = request.body, let text = String(data: body, encoding: .utf8) else { return [] }
        return Set(CollectionName.writable.map(\.rawValue).filter { text.contains("/collections/\($0)/records/") })
    }

    static func carries(_ request: HTTPRequest, _ id: String) -> Bool {
        guard let body = request.body, let text = String(data: body, encoding: .utf8) else { return false }
        return text.contains("/records/\(id)\"")
    }

    private func engine(_ transport: FakeHTTPTransport, store: ShelfStore, inFlight: Int = 4, retry: RetryPolicy = RetryPolicy(maxAttempts: 1)) -> SyncEngine {
        let client = APIClient(configuration: .init(baseURL: "http://127.0.0.1:1/v1", credentials: .init(user: "u", password: "p")), transport: transport)
        var options = SyncOptions(retry: retry, pulls: false)
        options.maximumBatchesInFlight = inFlight
        return SyncEngine(
            account: "test", store: store, client: client, options: options,
            clock: SyncClock(now: { Date(timeIntervalSince1970: 1_800_000_000) }, sleep: { _ in }))
    }

    private func saveBook(_ store: ShelfStore, _ id: String, title: String = "Book") throws {
        _ = try store.write { tx in
            try tx.saveLocal(.books, id: id, json: Data(#"{"id":"\#(id)","title":"\#(title)","author_name":"A","finished":false}"#.utf8))
        }
    }

    private func saveNote(_ store: ShelfStore, _ id: String) throws {
        _ = try store.write { tx in
            try tx.saveLocal(.notes, id: id, json: Data(#"{"id":"\#(id)","title":"Note","body":"","book_id":null}"#.utf8))
        }
    }

    private func saveTask(_ store: ShelfStore, _ id: String) throws {
        _ = try store.write { tx in
            try tx.saveLocal(.tasks, id: id, json: Data(#"{"id":"\#(id)","title":"Task","done":false}"#.utf8))
        }
    }

    // MARK: Tests

    @Test func batchesOfTwoCollectionsAreInFlightAtOnce() async throws {
        // GIVEN 30 books and 5 notes waiting, more than one batch holds
        let store = try ShelfStore.inMemory()
        for index in 0..<30 { try saveBook(store, "b\(index)") }
        for index in 0..<5 { try saveNote(store, "n\(index)") }
        let server = BatchServer()
        let gate = SuspensionGate<Void>()
        let transport = FakeHTTPTransport { request in
            try await gate.pass()
            return try server.answer(request)
        }
        let run = Task { await engine(transport, store: store).run() }

        // WHEN two requests wait at the gate, neither answered
        await gate.arrival(count: 2)

        // THEN they were in flight together: 25 books in one, the 5 notes in the other
        #expect(await gate.waitingCount == 2)
        let first = transport.requests.map(Self.collections(of:))
        #expect(first.count == 2)
        #expect(Set(first) == [["books"], ["notes"]])

        // WHEN the answers come, the last 5 books go, and everything is stored
        await gate.open(with: ())
        let report = await run.value
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(report.requests == 3)
        #expect(transport.requests.allSatisfy { Self.collections(of: $0).count == 1 })
        #expect(report.collections["books"]?.pushed == 30)
        #expect(report.collections["notes"]?.pushed == 5)
        #expect(try store.pendingCount() == 0)
        #expect(server.ids("books").count == 30)
        #expect(server.ids("notes").count == 5)
    }

    @Test func aCollectionFarDownTheOutboxStillGoesBesideABigOne() async throws {
        // GIVEN 20 books, then 2 notes, one change per batch: the notes are far past the
        // head of the outbox, which only books fill
        let store = try ShelfStore.inMemory()
        for index in 0..<20 { try saveBook(store, "b\(index)") }
        for index in 0..<2 { try saveNote(store, "n\(index)") }
        let server = BatchServer()
        let gate = SuspensionGate<Void>()
        let transport = FakeHTTPTransport { request in
            try await gate.pass()
            return try server.answer(request)
        }
        let client = APIClient(configuration: .init(baseURL: "http://127.0.0.1:1/v1", credentials: .init(user: "u", password: "p")), transport: transport)
        let engine = SyncEngine(
            account: "test", store: store, client: client,
            options: SyncOptions(retry: RetryPolicy(maxAttempts: 1), batchSize: 1, pulls: false),
            clock: SyncClock(now: { Date(timeIntervalSince1970: 1_800_000_000) }, sleep: { _ in }))
        let run = Task { await engine.run() }

        // WHEN two requests wait: the first book and the first note, side by side
        await gate.arrival(count: 2)
        #expect(Set(transport.requests.map(Self.collections(of:))) == [["books"], ["notes"]])

        // THEN once answered, everything goes
        await gate.open(with: ())
        let report = await run.value
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(transport.requests.count == 22)
        #expect(try store.pendingCount() == 0)
    }

    @Test func aSmallPushOfSeveralCollectionsIsStillOneRequest() async throws {
        let store = try ShelfStore.inMemory()
        for index in 0..<3 { try saveBook(store, "b\(index)") }
        try saveNote(store, "n0")
        try saveTask(store, "t0")
        let server = BatchServer()
        let transport = FakeHTTPTransport { request in try server.answer(request) }
        let report = await engine(transport, store: store).run()
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(transport.requests.count == 1)
        #expect(Self.collections(of: transport.requests[0]) == ["books", "notes", "tasks"])
        #expect(try store.pendingCount() == 0)
    }

    @Test func aRecordsNextChangeWaitsForTheAnswerToItsEarlierOne() async throws {
        // GIVEN a book, then 25 notes and a task, two batches in flight at most
        let store = try ShelfStore.inMemory()
        try saveBook(store, "b1", title: "First")
        for index in 0..<25 { try saveNote(store, "n\(index)") }
        try saveTask(store, "t1")
        let server = BatchServer()
        let gates = ["books": SuspensionGate<Void>(), "notes": SuspensionGate<Void>(), "tasks": SuspensionGate<Void>()]
        let transport = FakeHTTPTransport { request in
            let collection = try #require(Self.collections(of: request).first)
            try await #require(gates[collection]).pass()
            return try server.answer(request)
        }
        let run = Task { await engine(transport, store: store, inFlight: 2).run() }

        // WHEN the book's batch and the notes' batch are in flight, and the reader edits the book
        await gates["books"]!.arrival()
        await gates["notes"]!.arrival()
        try saveBook(store, "b1", title: "Second")
        // …and the notes are answered, which frees a place: the task's batch takes it
        await gates["notes"]!.open(with: ())
        await gates["tasks"]!.arrival()

        // THEN the book went out once: its change in flight was not sent again, nor its edit
        #expect(await gates["books"]!.arrivalCount == 1)
        #expect(transport.requests.filter { Self.carries($0, "b1") }.count == 1)

        // WHEN the book's first change is answered
        await gates["books"]!.open(with: ())
        await gates["tasks"]!.open(with: ())
        let report = await run.value

        // THEN the edit followed, against the version that answer made
        #expect(report.outcome == .synced, "\(report.message)")
        let bookRequests = transport.requests.filter { Self.carries($0, "b1") }
        #expect(bookRequests.count == 2)
        let second = try #require(bookRequests.last?.body).flatMap { String(data: $0, encoding: .utf8) }
        let stamps = server.stamps("books", id: "b1")
        #expect(stamps.count == 2)
        #expect(second?.contains(#""If-Match":"\"\#(stamps.first ?? 0)\"""#) == true, "\(second ?? "")")
        #expect(second?.contains("Second") == true)
        #expect(server.record("books", id: "b1")?["title"] as? String == "Second")
        #expect(try store.pendingCount() == 0)
    }

    @Test func anOutboxOfMoreThan64BatchesIsPushedInOneRun() async throws {
        // GIVEN 70 books and a server that takes one change per batch
        let store = try ShelfStore.inMemory()
        for index in 0..<70 { try saveBook(store, "b\(index)") }
        let server = BatchServer()
        let transport = FakeHTTPTransport { request in try server.answer(request) }
        let client = APIClient(configuration: .init(baseURL: "http://127.0.0.1:1/v1", credentials: .init(user: "u", password: "p")), transport: transport)
        let engine = SyncEngine(
            account: "test", store: store, client: client,
            options: SyncOptions(retry: RetryPolicy(maxAttempts: 1), batchSize: 1, pulls: false),
            clock: SyncClock(now: { Date(timeIntervalSince1970: 1_800_000_000) }, sleep: { _ in }))

        // WHEN it pushes, THEN every change goes in this run, one request each
        let report = await engine.run()
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(transport.requests.count == 70)
        #expect(server.ids("books").count == 70)
        #expect(try store.pendingCount() == 0)
    }

    @Test func aBatchWithA409StoresNoneOfItsAnswersAndIsSentAgain() async throws {
        // GIVEN two books, and a server that answers the first batch's second write with
        // a 409 and rolls the batch back, the first write's 201 included
        let store = try ShelfStore.inMemory()
        try saveBook(store, "b1")
        try saveBook(store, "b2")
        let server = BatchServer(rollBackFirstBatch: true)
        let transport = FakeHTTPTransport { request in try server.answer(request) }

        // WHEN it pushes
        let report = await engine(transport, store: store, retry: RetryPolicy(maxAttempts: 3)).run()

        // THEN both were sent again and landed: nothing acknowledged that the server
        // lacks, nothing parked as refused
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(transport.requests.count == 2)
        #expect(server.ids("books") == ["b1", "b2"])
        #expect(try store.pendingCount() == 0)
        #expect(try store.deadLetterCount() == 0)
        #expect(try store.record(.books, id: "b1")?.lastModified != nil)
    }
}
