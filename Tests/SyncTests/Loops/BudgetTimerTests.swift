import Domain
import Foundation
@testable import Sync
import TestSupport
import Testing

// MARK: - A run's budget, as a timer over the run's task

@Suite struct BudgetTimerTests {
    /// A task that waits until it is cancelled, as a run whose request hangs.
    private static func hangingRun() -> Task<RunReport, Never> {
        Task {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3_600)) }
            return RunReport(account: "test", outcome: .temporaryFailure, message: "cancelled", startedAt: Date())
        }
    }

    /// A budget of 0.2 s on a manual clock, over a run that hangs until cancelled.
    private static func budgetedRun() -> (ManualClock, BudgetTimer, Task<RunReport, Never>) {
        let clock = ManualClock()
        let timer = BudgetTimer(.milliseconds(200), clock: clock.clock)
        let run = hangingRun()
        timer.cancels(run)
        return (clock, timer, run)
    }

    @Test func aBudgetRunsOutOnlyOnceItsWorkStartedAndCancelsTheRunsTask() async {
        let (clock, timer, run) = Self.budgetedRun()
        clock.advance(by: .seconds(1))
        #expect(!timer.expired, "the work has not started")

        timer.start()
        await clock.sleepStarted()
        clock.advance(by: .milliseconds(199))
        #expect(!timer.expired)
        clock.advance(by: .milliseconds(1))
        _ = await run.value
        #expect(timer.expired)
        #expect(run.isCancelled)
    }

    @Test func aStoppedBudgetNeverRunsOut() async {
        let (clock, timer, run) = Self.budgetedRun()
        timer.start()
        await clock.sleepStarted()
        timer.stop()
        clock.advance(by: .seconds(1))
        #expect(!timer.expired)
        #expect(!run.isCancelled)
        run.cancel()
        _ = await run.value
    }

    @Test func aRunOutBudgetCancelsATaskMadeKnownAfterIt() async {
        let (clock, timer, first) = Self.budgetedRun()
        timer.start()
        await clock.sleepStarted()
        clock.advance(by: .seconds(1))
        _ = await first.value
        #expect(timer.expired)

        let run = Self.hangingRun()
        timer.cancels(run)
        _ = await run.value
        #expect(run.isCancelled)
    }

    @Test func noBudgetNoTimer() async {
        let clock = ManualClock()
        let timer = BudgetTimer(nil, clock: clock.clock)
        timer.start()
        clock.advance(by: .seconds(86_400))
        #expect(!timer.expired)
    }
}
