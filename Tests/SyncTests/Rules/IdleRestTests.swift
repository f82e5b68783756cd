import Storage
import Testing
@testable import Sync

// MARK: - IdleRestTests

/// When a worker told to rest asks the server, decided without a store or a server
/// (`IdleRest`). `IdleRestRunTests` runs the same rule through an engine and a real Kinto.
@Suite struct IdleRestTests {
    static let four = IdleRest(longest: 4)!

    // MARK: - A tick

    struct TickCase: CustomTestStringConvertible, Sendable {
        let name: String
        let streak: IdleStreak
        var waiting = false
        let tick: IdleRest.Tick
        var testDescription: String { name }
    }

    static let ticks: [TickCase] = [
        TickCase(name: "no streak: the server is asked", streak: IdleStreak(), tick: .run),
        TickCase(name: "idle runs but no tick left to rest: asked", streak: IdleStreak(idleRuns: 5, ticksToRest: 0), tick: .run),
        TickCase(name: "ticks to rest: this one rests, one fewer left",
                 streak: IdleStreak(idleRuns: 3, ticksToRest: 3), tick: .rest(IdleStreak(idleRuns: 3, ticksToRest: 2))),
        TickCase(name: "the last tick to rest rests, and the next asks",
                 streak: IdleStreak(idleRuns: 2, ticksToRest: 1), tick: .rest(IdleStreak(idleRuns: 2, ticksToRest: 0))),
        TickCase(name: "a local change waiting ends the rest at once",
                 streak: IdleStreak(idleRuns: 3, ticksToRest: 3), waiting: true, tick: .run),
        TickCase(name: "a rest written under a longer limit is cut to this worker's",
                 streak: IdleStreak(idleRuns: 9, ticksToRest: 63), tick: .rest(IdleStreak(idleRuns: 9, ticksToRest: 2))),
    ]

    @Test(arguments: ticks)
    func aTick(_ example: TickCase) {
        #expect(Self.four.atTick(example.streak, localChangesWaiting: example.waiting) == example.tick)
    }

    // MARK: - After a run

    struct AfterCase: CustomTestStringConvertible, Sendable {
        let name: String
        let before: IdleStreak
        let idle: Bool
        var rest: IdleRest? = IdleRestTests.four
        let after: IdleStreak
        var testDescription: String { name }
    }

    static let afters: [AfterCase] = [
        AfterCase(name: "a first idle run rests no tick", before: IdleStreak(), idle: true, after: IdleStreak(idleRuns: 1, ticksToRest: 0)),
        AfterCase(name: "a second rests one", before: IdleStreak(idleRuns: 1, ticksToRest: 0), idle: true,
                  after: IdleStreak(idleRuns: 2, ticksToRest: 1)),
        AfterCase(name: "a third rests three (every fourth tick asks)", before: IdleStreak(idleRuns: 2, ticksToRest: 0), idle: true,
                  after: IdleStreak(idleRuns: 3, ticksToRest: 3)),
        AfterCase(name: "later ones stay at the limit", before: IdleStreak(idleRuns: 40, ticksToRest: 0), idle: true,
                  after: IdleStreak(idleRuns: 41, ticksToRest: 3)),
        AfterCase(name: "a longer limit keeps doubling", before: IdleStreak(idleRuns: 4, ticksToRest: 0), idle: true,
                  rest: IdleRest(longest: 64), after: IdleStreak(idleRuns: 5, ticksToRest: 15)),
        AfterCase(name: "a run that brought something ends the streak", before: IdleStreak(idleRuns: 7, ticksToRest: 0), idle: false,
                  after: IdleStreak()),
        AfterCase(name: "so does one that never rests (shelf sync pulled a change)", before: IdleStreak(idleRuns: 7, ticksToRest: 2),
                  idle: false, rest: nil, after: IdleStreak()),
        AfterCase(name: "an idle run that never rests leaves the worker's streak as it is",
                  before: IdleStreak(idleRuns: 2, ticksToRest: 1), idle: true, rest: nil, after: IdleStreak(idleRuns: 2, ticksToRest: 1)),
    ]

    @Test(arguments: afters)
    func afterARun(_ example: AfterCase) {
        #expect(IdleRest.after(example.before, runWasIdle: example.idle, rest: example.rest) == example.after)
    }

    // MARK: - Many ticks

    /// Ticks of a device whose server has nothing new, with the limit at 4: the server is
    /// asked at ticks 0, 1, 3, 7 — then every fourth — and a local change made before tick 9
    /// is sent at tick 9; its run brought nothing either, so the rest goes on from there.
    @Test func aQuietDeviceAsksEveryFourthTickAndALocalChangeGoesAtOnce() {
        var streak = IdleStreak()
        var asked: [Int] = []
        for tick in 0..<20 {
            switch Self.four.atTick(streak, localChangesWaiting: tick == 9) {
            case .rest(let left):
                streak = left
            case .run:
                asked.append(tick)
                streak = IdleRest.after(streak, runWasIdle: true, rest: Self.four)
            }
        }
        #expect(asked == [0, 1, 3, 7, 9, 13, 17])
    }

    /// The same device, but the server brings another device's change to the run at tick 7:
    /// the streak starts again, and the server is asked at 8, 9 and 11 before the rests lengthen.
    @Test func aChangeFromTheServerStartsTheStreakAgain() {
        var streak = IdleStreak()
        var asked: [Int] = []
        for tick in 0..<16 {
            switch Self.four.atTick(streak, localChangesWaiting: false) {
            case .rest(let left):
                streak = left
            case .run:
                asked.append(tick)
                streak = IdleRest.after(streak, runWasIdle: tick != 7, rest: Self.four)
            }
        }
        #expect(asked == [0, 1, 3, 7, 8, 9, 11, 15])
    }

    // MARK: - The limit and the words

    @Test func theLimitIsTwoToSixtyFourTicks() {
        #expect(IdleRest(longest: 1) == nil, "1 is every tick: no rest")
        #expect(IdleRest(longest: 0) == nil)
        #expect(IdleRest(longest: 65) == nil)
        #expect(IdleRest(longest: 2)?.longest == 2)
        #expect(IdleRest(longest: 64)?.longest == 64)
    }

    @Test func aRestedTickSaysWhyAndWhenTheServerIsAskedAgain() {
        #expect(IdleRest.message(IdleStreak(idleRuns: 3, ticksToRest: 2))
            == "rested: the last 3 runs brought nothing from the server; the server is asked again in 3 ticks, or at the next tick after a local change")
        #expect(IdleRest.message(IdleStreak(idleRuns: 1, ticksToRest: 0))
            == "rested: the last run brought nothing from the server; the server is asked again at the next tick")
    }

    // MARK: - What counts as idle

    @Test func aCollectionBroughtNothingOnlyWhenEveryCountButItsPushesIsZero() {
        var timed = CollectionReport()
        timed.durationMilliseconds = 40
        #expect(timed.broughtNothing, "time spent is nothing brought")
        var pushed = CollectionReport()
        pushed.pushed = 3
        #expect(pushed.broughtNothing, "this device's own changes tell nothing of other devices'")
        var pulled = CollectionReport()
        pulled.pulled = 1
        #expect(!pulled.broughtNothing)
        var merged = CollectionReport()
        merged.pushed = 1
        merged.merged = 1
        #expect(!merged.broughtNothing, "a push that met another device's version brought it")
        var late = CollectionReport()
        late.late = 1
        #expect(!late.broughtNothing)
        var reconciled = CollectionReport()
        reconciled.reconciliation = ReconciliationReport()
        #expect(!reconciled.broughtNothing, "a reconciliation run ends a streak, whatever it found")
        var forgot = CollectionReport()
        forgot.serverForgot = "the server lost records"
        #expect(!forgot.broughtNothing)
    }
}
