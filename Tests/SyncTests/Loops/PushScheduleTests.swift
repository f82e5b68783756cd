import Domain
import Testing
@testable import Sync

// MARK: - The push's schedule, without a server

@Suite struct PushScheduleTests {
    private struct Refused: Error {}

    @Test func batchesLeaveUntilTheLimitInFlightThenWaitForAnswers() {
        var schedule = PushSchedule(rounds: 10, maximumInFlight: 2, maximumFailedRounds: 3)
        #expect(schedule.next() == .sendNextBatch)
        schedule.batchRead()
        schedule.sent(to: [.books])
        #expect(schedule.next() == .sendNextBatch)
        schedule.batchRead()
        schedule.sent(to: [.notes])
        #expect(schedule.next() == .awaitAnswer)
        #expect(schedule.busy == [.books, .notes])

        schedule.answered([.books])
        #expect(schedule.busy == [.notes])
        #expect(schedule.next() == .sendNextBatch)
    }

    @Test func nothingToSendWaitsForTheAnswersAndAnAnswerMayFreeMore() {
        var schedule = PushSchedule(rounds: 10, maximumInFlight: 4, maximumFailedRounds: 3)
        schedule.batchRead()
        schedule.sent(to: [.books])
        schedule.nothingToSend()
        #expect(schedule.next() == .awaitAnswer)
        schedule.answered([.books])
        #expect(schedule.stored(madeProgress: true) == .carryOn)
        #expect(schedule.next() == .sendNextBatch)
        schedule.nothingToSend()
        #expect(schedule.next() == .finish(roundsSpent: false))
    }

    @Test func theBoundOnRoundsEndsThePushSayingSo() {
        var schedule = PushSchedule(rounds: 1, maximumInFlight: 4, maximumFailedRounds: 3)
        schedule.batchRead()
        schedule.sent(to: [.books])
        #expect(schedule.next() == .awaitAnswer)
        schedule.answered([.books])
        _ = schedule.stored(madeProgress: true)
        #expect(schedule.next() == .finish(roundsSpent: true))
    }

    @Test func aStopSendsNothingMoreButWaitsForEveryBatchInFlightThenFailsWithTheFirstReason() {
        var schedule = PushSchedule(rounds: 10, maximumInFlight: 4, maximumFailedRounds: 3)
        for collection in [CollectionName.books, .notes] {
            schedule.batchRead()
            schedule.sent(to: [collection])
        }
        schedule.answered([.books])
        schedule.stopping(SyncStop.authentication("first"))
        #expect(schedule.next() == .awaitAnswer)
        schedule.answered([.notes])
        schedule.stopping(Refused())
        #expect(schedule.next() == .fail)
        guard case SyncStop.authentication(let message)? = schedule.stop else {
            Issue.record("the first reason is kept, got \(String(describing: schedule.stop))")
            return
        }
        #expect(message == "first")
    }

    @Test func roundsWithoutProgressRetryThenGiveUpAndProgressStartsTheCountAgain() {
        var schedule = PushSchedule(rounds: 10, maximumInFlight: 1, maximumFailedRounds: 3)
        #expect(schedule.stored(madeProgress: false) == .retry(attempt: 1))
        #expect(schedule.stored(madeProgress: false) == .retry(attempt: 2))
        #expect(schedule.stored(madeProgress: true) == .carryOn)
        #expect(schedule.failedRounds == 0)
        #expect(schedule.stored(madeProgress: false) == .retry(attempt: 1))
        #expect(schedule.stored(madeProgress: false) == .retry(attempt: 2))
        #expect(schedule.stored(madeProgress: false) == .gaveUp(attempts: 3))
    }

    @Test func atLeastOneBatchIsInFlight() {
        let schedule = PushSchedule(rounds: 1, maximumInFlight: 0, maximumFailedRounds: 1)
        #expect(schedule.next() == .sendNextBatch)
    }
}
