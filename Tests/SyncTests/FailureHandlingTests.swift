import Domain
import Foundation
import Services
import Storage
import Sync
import Synchronization
import TestSupport
import Testing

/// How a run sorts failures, against a scripted server: transient ones are retried
/// with backoff inside the run, throttling is remembered across runs, refusals of one
/// change go to dead letters, a refused login stops the run.
@Suite("Failure handling")
struct FailureHandlingTests {
    /// A clock whose "sleep" only records the wait, so retries take no time.
    final class TestClock: Sendable {
        let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let waits = Mutex<[Duration]>([])
        var clock: SyncClock {
            SyncClock(now: { self.current.withLock { $0 } }, sleep: { duration in self.waits.withLock { $0.append(duration) } })
        }
        func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    private func engine(
        _ transport: FakeHTTPTransport, clock: TestClock, store: ShelfStore? = nil,
        collections: [CollectionName] = [.books], retry: RetryPolicy = RetryPolicy(maxAttempts: 3)
    ) throws -> SyncEngine {
        let client = APIClient(configuration: .init(baseURL: "http://127.0.0.1:1/v1", credentials: .init(user: "u", password: "secret-pw")), transport: transport)
        return SyncEngine(
            account: "test", store: try store ?? ShelfStore.inMemory(), client: client,
            options: SyncOptions(collections: collections, retry: retry), clock: clock.clock)
    }

    private static func json(_ text: String, status: Int = 200, headers: [(String, String)] = [], url: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/json")] + headers), body: Data(text.utf8), url: url)
    }

    private static let emptyPage = #"{"data":[]}"#

    @Test func transientFailuresAreRetriedWithGrowingWaits() async throws {
        let calls = Mutex(0)
        let transport = FakeHTTPTransport { request in
            let call = calls.withLock { $0 += 1; return $0 }
            if call < 3 { return Self.json(#"{"code":503,"errno":201,"error":"Service Unavailable","message":"flaky"}"#, status: 503, url: request.url) }
            return Self.json(Self.emptyPage, headers: [("ETag", "\"5\"")], url: request.url)
        }
        let clock = TestClock()
        let report = try await engine(transport, clock: clock).run()
        #expect(report.outcome == .synced)
        // two failures, the success, and the first sync's look at the collection objects
        #expect(calls.withLock { $0 } == 4)
        let waits = clock.waits.withLock { $0 }
        #expect(waits.count == 2)
        #expect(waits[0] <= RetryPolicy(maxAttempts: 3).ceiling(beforeRetry: 1))
        #expect(waits[1] <= RetryPolicy(maxAttempts: 3).ceiling(beforeRetry: 2))
    }

    @Test func retriesAreBoundedAndEndAsATemporaryFailure() async throws {
        let transport = FakeHTTPTransport { request in
            Self.json(#"{"code":500,"errno":999,"error":"Internal Server Error","message":"boom"}"#, status: 500, url: request.url)
        }
        let clock = TestClock()
        let report = try await engine(transport, clock: clock).run()
        #expect(report.outcome == .temporaryFailure)
        #expect(transport.requests.count == 3)
        #expect(report.message.contains("gave up after 3 attempts"))
        #expect(!report.message.contains("secret-pw"))
    }

    @Test func retryAfterIsStoredAndTheNextRunDoesNotAskBeforeIt() async throws {
        let transport = FakeHTTPTransport { request in
            Self.json(#"{"code":503,"errno":201,"error":"Service Unavailable","message":"storage down"}"#,
                      status: 503, headers: [("Retry-After", "30")], url: request.url)
        }
        let clock = TestClock()
        let store = try ShelfStore.inMemory()
        let sync = try engine(transport, clock: clock, store: store)
        let first = await sync.run()
        #expect(first.outcome == .backoff)
        #expect(first.backoffUntil == clock.current.withLock { $0 }.addingTimeInterval(30))
        #expect(transport.requests.count == 1)  // not retried inside the run either
        #expect(try store.read { try $0.syncState(.books) }.backoffUntil == first.backoffUntil)

        clock.advance(10)
        let second = await sync.run()
        #expect(second.outcome == .backoff)
        #expect(second.requests == 0)
        #expect(transport.requests.count == 1)

        clock.advance(25)
        _ = await sync.run()
        #expect(transport.requests.count == 2)  // past the deadline, it asks again
    }

    @Test func backoffHeaderStopsTheRunAfterStoringWhatArrived() async throws {
        let transport = FakeHTTPTransport { request in
            Self.json(#"{"data":[{"id":"b1","title":"Dune","author_name":"F","finished":false,"last_modified":10}]}"#,
                      headers: [("ETag", "\"10\""), ("Backoff", "60")], url: request.url)
        }
        let clock = TestClock()
        let store = try ShelfStore.inMemory()
        let report = try await engine(transport, clock: clock, store: store).run()
        #expect(report.outcome == .backoff)
        #expect(try store.record(.books, id: "b1") != nil)  // the page was applied
        #expect(try store.read { try $0.syncState(.books) }.backoffUntil == clock.current.withLock { $0 }.addingTimeInterval(60))
    }

    @Test func refusedCredentialsStopTheRun() async throws {
        let transport = FakeHTTPTransport { request in
            Self.json(#"{"code":401,"errno":104,"error":"Unauthorized","message":"Please authenticate yourself to use this endpoint."}"#,
                      status: 401, url: request.url)
        }
        let report = try await engine(transport, clock: TestClock(), collections: [.books, .notes]).run()
        #expect(report.outcome == .authenticationFailed)
        #expect(transport.requests.count == 1)
        #expect(!report.message.contains("secret-pw"))
    }

    @Test func aRefusedChangeGoesToDeadLettersAndTheRestGoThrough() async throws {
        let transport = FakeHTTPTransport { request in
            if request.url.hasSuffix("/batch") {
                // The first change is refused for good, the second accepted.
                return Self.json(#"""
                {"responses":[
                 {"status":400,"path":"/v1/buckets/default/collections/books/records/bad","headers":{},
                  "body":{"code":400,"errno":107,"error":"Invalid parameters","message":"data.title: too long"}},
                 {"status":201,"path":"/v1/buckets/default/collections/books/records/good","headers":{},
                  "body":{"data":{"id":"good","title":"Fine","author_name":"A","finished":false,"last_modified":20}}}
                ]}
                """#, url: request.url)
            }
            return Self.json(Self.emptyPage, headers: [("ETag", "\"1\"")], url: request.url)
        }
        let store = try ShelfStore.inMemory()
        for (id, title) in [("bad", String(repeating: "x", count: 300)), ("good", "Fine")] {
            _ = try store.write { tx in
                try tx.saveLocal(.books, id: id, json: Data(#"{"id":"\#(id)","title":"\#(title)","author_name":"A","finished":false}"#.utf8))
            }
        }
        let events = Mutex<[SyncEvent]>([])
        let report = try await engine(transport, clock: TestClock(), store: store).run { event in events.withLock { $0.append(event) } }
        #expect(report.outcome == .needsAttention)
        #expect(report.collections["books"]?.pushed == 1)
        #expect(report.collections["books"]?.deadLetters == 1)
        #expect(try store.pendingCount() == 0)
        let letters = try store.read { try $0.deadLetters() }
        #expect(letters.map(\.recordID) == ["bad"])
        #expect(letters.first?.status == 400)
        #expect(letters.first?.reason.contains("data.title: too long") == true)
        #expect(events.withLock { $0 }.contains(.deadLettered(.books, id: "bad", status: 400, reason: letters[0].reason)))

        // Retrying puts it back in the outbox; discarding forgets it.
        try ConflictResolver(store: store).retry(deadLetter: letters[0].id)
        #expect(try store.pendingCount() == 1)
        #expect(try store.deadLetterCount() == 0)
    }

    /// One pushed change's answer inside a `POST /batch`, and what the run does with it
    /// (`FailureClass.batchVerdict`).
    struct BatchAnswer: Sendable, CustomTestStringConvertible {
        let status: Int
        var headers = #"{}"#
        /// The change is still waiting (in flight) after the run.
        let waits: Bool
        let deadLettered: Bool
        let outcome: RunOutcome
        /// `POST /batch` requests the run made.
        let batches: Int
        var testDescription: String { "\(status) \(headers)" }
    }

    static let batchAnswers: [BatchAnswer] = [
        BatchAnswer(status: 503, waits: true, deadLettered: false, outcome: .temporaryFailure, batches: 3),
        BatchAnswer(status: 429, headers: #"{"Retry-After":"30"}"#, waits: true, deadLettered: false, outcome: .temporaryFailure, batches: 3),
        BatchAnswer(status: 408, waits: true, deadLettered: false, outcome: .temporaryFailure, batches: 3),
        BatchAnswer(status: 401, waits: true, deadLettered: false, outcome: .authenticationFailed, batches: 1),
        BatchAnswer(status: 400, waits: false, deadLettered: true, outcome: .needsAttention, batches: 1),
        BatchAnswer(status: 403, waits: false, deadLettered: true, outcome: .needsAttention, batches: 1),
        BatchAnswer(status: 600, waits: false, deadLettered: true, outcome: .needsAttention, batches: 1),
    ]

    @Test(arguments: batchAnswers)
    func aChangesAnswerInABatchIsSortedByItsClass(_ answer: BatchAnswer) async throws {
        let batches = Mutex(0)
        let transport = FakeHTTPTransport { request in
            guard request.url.hasSuffix("/batch") else {
                return Self.json(Self.emptyPage, headers: [("ETag", "\"1\"")], url: request.url)
            }
            batches.withLock { $0 += 1 }
            return Self.json(#"""
            {"responses":[{"status":\#(answer.status),"path":"/v1/buckets/default/collections/books/records/b1","headers":\#(answer.headers),
              "body":{"code":\#(answer.status),"errno":999,"error":"E","message":"said"}}]}
            """#, url: request.url)
        }
        let store = try ShelfStore.inMemory()
        _ = try store.write { tx in
            try tx.saveLocal(.books, id: "b1", json: Data(#"{"id":"b1","title":"Dune","author_name":"F","finished":false}"#.utf8))
        }
        let report = try await engine(transport, clock: TestClock(), store: store).run()
        #expect(report.outcome == answer.outcome, "\(report.message)")
        #expect(batches.withLock { $0 } == answer.batches)
        #expect(try store.pendingCount() == (answer.waits ? 1 : 0))
        #expect(try store.deadLetterCount() == (answer.deadLettered ? 1 : 0))
        #expect(!report.message.contains("secret-pw"))
    }

    @Test func aWaitNamedWithAnotherStatusThan429Or503IsRetriedAsTransient() async throws {
        let calls = Mutex(0)
        let transport = FakeHTTPTransport { request in
            let call = calls.withLock { $0 += 1; return $0 }
            if call == 1 {
                return Self.json(#"{"code":500,"errno":999,"error":"Internal Server Error","message":"boom"}"#,
                                 status: 500, headers: [("Retry-After", "30")], url: request.url)
            }
            return Self.json(Self.emptyPage, headers: [("ETag", "\"5\"")], url: request.url)
        }
        let clock = TestClock()
        let report = try await engine(transport, clock: clock).run()
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(report.backoffUntil == nil)
        #expect(clock.waits.withLock { $0 }.count == 1)
    }

    @Test func theEventStreamEndsWithTheReport() async throws {
        let transport = FakeHTTPTransport { request in Self.json(Self.emptyPage, headers: [("ETag", "\"3\"")], url: request.url) }
        var seen: [SyncEvent] = []
        for await event in try engine(transport, clock: TestClock()).events() { seen.append(event) }
        #expect(seen.first == .runStarted(collections: [.books]))
        guard case .runFinished(let report)? = seen.last else { Issue.record("no final report"); return }
        #expect(report.outcome == .synced)
        #expect(seen.contains(.collectionStarted(.books)))
        #expect(seen.contains { if case .collectionFinished(.books, _) = $0 { true } else { false } })
    }
}
