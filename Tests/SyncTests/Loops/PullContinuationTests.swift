import Foundation
import Records
import Services
import Testing
@testable import Sync

// MARK: - From one page to the next, without a server

@Suite struct PullContinuationTests {
    @Test func aNamedNextPageIsAskedForAheadUnlessTheServerAskedForABackoff() {
        #expect(PullContinuation.fetchAhead(after: .url("http://kinto/next"), stopsForBackoff: false) == "http://kinto/next")
        #expect(PullContinuation.fetchAhead(after: .url("http://kinto/next"), stopsForBackoff: true) == nil)
        #expect(PullContinuation.fetchAhead(after: .byCursor, stopsForBackoff: false) == nil)
        #expect(PullContinuation.fetchAhead(after: .done, stopsForBackoff: false) == nil)
    }

    @Test func afterAPageTheFetchAheadIsAwaitedTheCursorAskedOrTheListIsComplete() {
        #expect(PullContinuation.afterApplying(.url("u"), fetchedAhead: true) == .awaitFetchedAhead)
        #expect(PullContinuation.afterApplying(.url("u"), fetchedAhead: false) == .requestFromCursor)
        #expect(PullContinuation.afterApplying(.byCursor, fetchedAhead: false) == .requestFromCursor)
        #expect(PullContinuation.afterApplying(.done, fetchedAhead: false) == .finished)
    }

    @Test func aTransientFailureAheadAsksFromTheCursorAndAnyOtherEndsThePull() {
        let timeout = APIError.transport(TransportFailure(kind: .timeout, method: .get, url: "http://kinto/next", message: "timed out"))
        let tls = APIError.transport(TransportFailure(kind: .tls, method: .get, url: "http://kinto/next", message: "bad certificate"))
        #expect(PullContinuation.afterFetchAheadFailure(timeout) == .requestFromCursor)
        #expect(PullContinuation.afterFetchAheadFailure(tls) == nil)
        #expect(PullContinuation.afterFetchAheadFailure(CancellationError()) == nil)
    }

    @Test func aThrottledServerIsNotAskedAgainFromTheCursor() {
        let failure = HTTPFailure(method: .get, url: "http://kinto/next", status: 503, retryAfter: 3)
        #expect(PullContinuation.afterFetchAheadFailure(APIError.httpStatus(failure)) == nil)
        let withoutWait = HTTPFailure(method: .get, url: "http://kinto/next", status: 503)
        #expect(PullContinuation.afterFetchAheadFailure(APIError.httpStatus(withoutWait)) == .requestFromCursor)
    }

    @Test func aNotModifiedAnswerFromTheCursorEndsThePull() {
        #expect(!PullContinuation.continues(withAnswer: nil))
    }
}

// MARK: - The pull's mode

@Suite struct PullModeTests {
    @Test func aRecoveryNotesTheLiveIdsItMeetsAndAnOrdinaryPullNone() {
        let page = [
            RawRecord(id: "a", lastModified: 1, json: Data(#"{"id":"a"}"#.utf8)),
            RawRecord(id: "b", lastModified: 2, isDeleted: true, json: Data(#"{"id":"b","deleted":true}"#.utf8)),
        ]
        var recovery = PullMode.recovery(present: [])
        recovery.note(page)
        #expect(recovery.present == ["a"])
        #expect(recovery.isRecovery)

        var ordinary = PullMode.ordinary
        ordinary.note(page)
        #expect(ordinary.present.isEmpty)
        #expect(!ordinary.isRecovery)
    }
}
