import Domain
import Foundation
import Services
import Storage
import Testing
@testable import Sync

// MARK: - One classification of failures, without a store or a server

@Suite struct FailureClassTests {
    private static let url = "http://127.0.0.1:1/v1/buckets/default/collections/books/records"

    // MARK: Errors and answers → class

    /// A failure as the server or the transport gave it, and the class it is.
    struct Sorted: Sendable, CustomTestStringConvertible {
        let name: String
        let error: APIError
        let expected: FailureClass
        var testDescription: String { name }
    }

    private static func transport(_ kind: TransportFailure.Kind) -> APIError {
        .transport(TransportFailure(kind: kind, method: .get, url: url, message: "\(kind)"))
    }

    /// A status as one answer of a `POST /batch` carries it: the same error a direct answer
    /// with that status and those headers is.
    private static func answer(_ status: Int, _ headers: HTTPHeaders = [:]) -> APIError {
        let body = Data(#"{"code":\#(status),"errno":999,"error":"E","message":"said"}"#.utf8)
        guard let error = BatchResult(status: status, path: "/v1/batch", headers: headers, body: body, method: .put).error else {
            preconditionFailure("\(status) is no failure")
        }
        return error
    }

    static let failures: [Sorted] = [
        Sorted(name: "timeout", error: transport(.timeout), expected: .transient),
        Sorted(name: "connection refused", error: transport(.connectionRefused), expected: .transient),
        Sorted(name: "host not found", error: transport(.hostNotFound), expected: .transient),
        Sorted(name: "connection lost", error: transport(.connectionLost), expected: .transient),
        Sorted(name: "other network error", error: transport(.other), expected: .transient),
        Sorted(name: "TLS", error: transport(.tls), expected: .fatal(.configuration)),
        Sorted(name: "response too large", error: transport(.tooLarge), expected: .permanent),
        Sorted(name: "401", error: answer(401), expected: .authentication),
        Sorted(name: "401 with Retry-After", error: answer(401, ["Retry-After": "5"]), expected: .authentication),
        Sorted(name: "400", error: answer(400), expected: .permanent),
        Sorted(name: "403", error: answer(403), expected: .permanent),
        Sorted(name: "404", error: answer(404), expected: .permanent),
        Sorted(name: "405", error: answer(405), expected: .permanent),
        Sorted(name: "409", error: answer(409, ["Retry-After": "3"]), expected: .permanent),
        Sorted(name: "412", error: answer(412), expected: .permanent),
        Sorted(name: "408", error: answer(408), expected: .transient),
        Sorted(name: "429", error: answer(429), expected: .transient),
        Sorted(name: "500", error: answer(500), expected: .transient),
        Sorted(name: "502", error: answer(502), expected: .transient),
        Sorted(name: "503", error: answer(503), expected: .transient),
        Sorted(name: "599", error: answer(599), expected: .transient),
        Sorted(name: "600", error: answer(600), expected: .permanent),
        Sorted(name: "429 with Retry-After", error: answer(429, ["Retry-After": "30"]), expected: .throttled(retryAfter: 30)),
        Sorted(name: "503 with Retry-After", error: answer(503, ["Retry-After": "3"]), expected: .throttled(retryAfter: 3)),
        Sorted(name: "503 with Retry-After 0", error: answer(503, ["Retry-After": "0"]), expected: .throttled(retryAfter: 0)),
        Sorted(name: "503 with a Retry-After past a day", error: answer(503, ["Retry-After": "99999999999"]),
               expected: .throttled(retryAfter: HeaderValues.maximumWait)),
        // NB: a wait named with another status is not the server throttling: retried like any 5xx.
        Sorted(name: "500 with Retry-After", error: answer(500, ["Retry-After": "3"]), expected: .transient),
        Sorted(name: "408 with Retry-After", error: answer(408, ["Retry-After": "3"]), expected: .transient),
        Sorted(name: "503 with an unreadable Retry-After", error: answer(503, ["Retry-After": "soon"]), expected: .transient),
        Sorted(name: "503 with Backoff only", error: answer(503, ["Backoff": "60"]), expected: .transient),
        Sorted(name: "a body that does not read", error: .decoding(DecodingFailure(url: url, message: "not JSON")), expected: .permanent),
        Sorted(name: "a request Shelf would not send", error: .invalidRequest("elsewhere"), expected: .permanent),
    ]

    @Test(arguments: failures)
    func aServerFailureIsSortedByItsKindStatusAndWait(_ failure: Sorted) {
        #expect(FailureClass(failure.error) == failure.expected)
        // The same error, met as any error (a thrown one), is sorted the same way.
        #expect(FailureClass(failure.error as any Error) == failure.expected)
    }

    @Test func aStatusIsSortedTheSameWhateverCaseItsErrorIs() {
        for status in [400, 401, 403, 404, 408, 409, 412, 429, 500, 503, 600] {
            for retryAfter in [nil, 3.0] as [TimeInterval?] {
                let headers: HTTPHeaders = retryAfter.map { ["Retry-After": "\(Int($0))"] } ?? [:]
                #expect(FailureClass(Self.answer(status, headers)) == FailureClass(status: status, retryAfter: retryAfter), "\(status)")
            }
        }
    }

    @Test func theStoreCancellationAndARunsOwnStopAreSortedToo() {
        #expect(FailureClass(StorageError.sqlite(operation: "write", code: 10, message: "disk I/O error")) == .fatal(.localStore))
        #expect(FailureClass(CancellationError()) == .cancelled)
        #expect(FailureClass(PagingError.tooManyPages(limit: 5)) == .permanent)
        #expect(FailureClass(SyncStop.temporary("gave up")) == .transient)
        #expect(FailureClass(SyncStop.authentication("refused")) == .authentication)
        #expect(FailureClass(SyncStop.configuration("key file")) == .fatal(.configuration))
        #expect(FailureClass(SyncStop.localStore("full")) == .fatal(.localStore))
        #expect(FailureClass(SyncStop.cancelled) == .cancelled)
        guard case .throttled = FailureClass(SyncStop.backoff(until: .distantFuture, reason: "wait")) else {
            Issue.record("a backoff stop is not throttled")
            return
        }
    }

    // MARK: Class → what the engine does

    /// What the engine does about one class of failure.
    struct Consequence: Sendable, CustomTestStringConvertible {
        let failure: FailureClass
        let retried: Bool
        let temporary: Bool
        let batch: FailureClass.BatchVerdict
        let outcome: RunOutcome
        let exit: ExitCode
        var testDescription: String { "\(failure)" }
    }

    static let consequences: [Consequence] = [
        Consequence(failure: .transient, retried: true, temporary: true, batch: .keepInFlight, outcome: .temporaryFailure, exit: .temporaryFailure),
        Consequence(failure: .throttled(retryAfter: 30), retried: false, temporary: true, batch: .keepInFlight, outcome: .backoff,
                    exit: .temporaryFailure),
        Consequence(failure: .authentication, retried: false, temporary: false, batch: .stopRun, outcome: .authenticationFailed,
                    exit: .noPermission),
        Consequence(failure: .permanent, retried: false, temporary: false, batch: .deadLetter, outcome: .temporaryFailure,
                    exit: .temporaryFailure),
        Consequence(failure: .fatal(.configuration), retried: false, temporary: false, batch: .stopRun, outcome: .configurationError,
                    exit: .configuration),
        Consequence(failure: .fatal(.localStore), retried: false, temporary: false, batch: .stopRun, outcome: .localStoreFailure,
                    exit: .ioError),
        Consequence(failure: .cancelled, retried: false, temporary: false, batch: .stopRun, outcome: .temporaryFailure,
                    exit: .temporaryFailure),
    ]

    @Test(arguments: consequences)
    func eachClassDecidesTheRetryTheBatchAnswerTheStopAndTheExitStatus(_ expected: Consequence) {
        let failure = expected.failure
        #expect(failure.isRetriedWithinRun == expected.retried)
        #expect(failure.isTemporary == expected.temporary)
        #expect(failure.batchVerdict == expected.batch)
        #expect(failure.stopOutcome == expected.outcome)
        #expect(failure.stopOutcome.exitStatus == expected.exit)
    }

    // MARK: The run's stop

    @Test(arguments: failures)
    func aRunStoppedByAFailureEndsAsItsClassSays(_ failure: Sorted) {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let stop = SyncStop.from(failure.error, now: now)
        #expect(stop.outcome == failure.expected.stopOutcome)
        if case .throttled(let wait) = failure.expected {
            guard case .backoff(let until, let reason) = stop else {
                Issue.record("\(failure.name): \(stop) is no backoff")
                return
            }
            #expect(until == now.addingTimeInterval(wait))
            #expect(reason == "the server answered \(failure.error.status ?? 0) with Retry-After: \(Int(wait))")
        } else {
            #expect(stop.message.hasPrefix(failure.error.description))
        }
    }

    @Test func aStopAlreadyMadeIsKeptAndItsOutcomeIsItsClasss() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let stops: [(SyncStop, RunOutcome)] = [
            (.backoff(until: now, reason: "wait"), .backoff),
            (.temporary("gave up"), .temporaryFailure),
            (.authentication("refused"), .authenticationFailed),
            (.localStore("full"), .localStoreFailure),
            (.cancelled, .temporaryFailure),
            (.configuration("key file"), .configurationError),
        ]
        for (stop, outcome) in stops {
            #expect(SyncStop.from(stop, now: now).message == stop.message)
            #expect(stop.outcome == outcome, "\(stop)")
        }
        #expect(SyncStop.from(StorageError.sqlite(operation: "write", code: 13, message: "database or disk is full"), now: now).outcome
            == .localStoreFailure)
    }
}
