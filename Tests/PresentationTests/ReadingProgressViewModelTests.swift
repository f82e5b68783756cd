import Domain
import Foundation
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Reading progress model")
struct ReadingProgressViewModelTests {
    nonisolated static let today = ReadingDay(Date(timeIntervalSince1970: 1_796_126_400), in: TimeZone(identifier: "UTC") ?? .gmt)

    let service: FakeReadingLogService
    let model: ReadingProgressViewModel

    init() throws {
        service = FakeReadingLogService(sessions: [
            try Self.session("s1", 30, "2026-11-29"),
            try Self.session("s2", 20, "2026-11-30"),
            try Self.session("s3", 15, "2026-11-30", book: "b-1"),
            try Self.session("s4", 10, "2026-12-01"),
        ])
        #expect(Self.today.description == "2026-12-01")
        model = ReadingProgressViewModel(service: service, goal: try DailyGoal(minutes: 30), today: { Self.today })
    }

    static func session(_ id: String, _ minutes: Int, _ day: String, book: String? = nil) throws -> ReadingSession {
        try ReadingSession(id: id, minutes: minutes, day: ReadingDay(day), bookID: book)
    }

    @Test func todayCountsAgainstTheGoalAndTheStreakRunsToYesterday() async throws {
        await model.load()

        let progress = try #require(model.progress)
        #expect(progress.minutesToday == 10)
        #expect(progress.minutesLeft == 20)
        #expect(!progress.goalMet)
        #expect(progress.streakDays == 2, "29 and 30 November met 30 minutes; today is not over")
    }

    @Test func loggingTodayMeetsTheGoalAndExtendsTheStreak() async throws {
        await model.load()

        let session = try #require(await model.log(minutes: 20))

        #expect(session.day == Self.today)
        #expect(model.progress?.minutesToday == 30)
        #expect(model.progress?.goalMet == true)
        #expect(model.progress?.streakDays == 3)
        #expect(await service.writes == ["log 20 2026-12-01 -"])
    }

    @Test func aRaisedGoalIsFollowed() async throws {
        await model.load()
        model.setGoal(try DailyGoal(minutes: 35))
        #expect(model.progress?.streakDays == 1, "only 30 November (35 minutes) meets 35")
    }

    @Test(arguments: [0, -5, 1441])
    func minutesOutOfRangeAreRefusedWithoutAskingTheService(minutes: Int) async {
        await model.load()
        #expect(await model.log(minutes: minutes) == nil)
        #expect(model.errorMessage == "Could not log the reading session: minutes must be 1...1440, got \(minutes)")
        #expect(await service.writes.isEmpty)
        #expect(model.sessions.count == 4)
    }

    @Test func aDayAfterTodayIsRefused() async throws {
        await model.load()
        #expect(await model.log(minutes: 10, on: try ReadingDay("2026-12-02")) == nil)
        #expect(model.errorMessage == "Could not log the reading session: 2026-12-02 is after today (2026-12-01): reading is logged on the day it happened")
        #expect(await service.writes.isEmpty)
        #expect(await model.log(minutes: 10, on: try ReadingDay("2026-11-01")) != nil, "an earlier day is fine")
    }

    @Test func daysAreGroupedNewestFirstWithTotals() async {
        await model.load()
        let days = model.days(last: 2)
        #expect(days.map(\.day.description) == ["2026-12-01", "2026-11-30"])
        #expect(days.map(\.totalMinutes) == [10, 35])
    }

    // MARK: Races

    @Test func aNewerLoadWinsOverAnOlderOneThatFinishesLater() async throws {
        // GIVEN two loads in flight, A started before B
        let older = [try Self.session("old", 5, "2026-12-01")]
        let newer = [try Self.session("new", 45, "2026-12-01")]
        let gateA = SuspensionGate<[ReadingSession]>(), gateB = SuspensionGate<[ReadingSession]>()
        await service.enqueueLoad(.gate(gateA))
        await service.enqueueLoad(.gate(gateB))
        let loadA = Task { await model.load() }
        await gateA.arrival()
        let loadB = Task { await model.load() }
        await gateB.arrival()

        // WHEN B finishes first, then A
        await gateB.open(with: newer)
        await loadB.value
        await gateA.open(with: older)
        await loadA.value

        // THEN B's sessions stay
        #expect(model.sessions == newer)
        #expect(model.progress?.goalMet == true)
    }

    @Test func aSessionLoggedWhileALoadIsInFlightIsKeptWhenTheLoadCarriesIt() async throws {
        // GIVEN a load waiting at the gate
        let gate = SuspensionGate<[ReadingSession]>()
        await service.enqueueLoad(.gate(gate))
        let load = Task { await model.load() }
        await gate.arrival()

        // WHEN a session is logged meanwhile, and the load then answers with it
        let logged = try #require(await model.log(minutes: 25))
        await gate.open(with: await service.stored)
        await load.value

        // THEN the total counts it once
        #expect(model.progress?.minutesToday == 35)
        #expect(model.sessions.filter { $0.id == logged.id }.count == 1)
    }

    @Test func aFailedLoadKeepsTheSessionsOnScreen() async throws {
        await model.load()
        let gate = SuspensionGate<[ReadingSession]>()
        await service.enqueueLoad(.gate(gate))
        let load = Task { await model.load() }
        await gate.arrival()
        #expect(model.isLoading)
        await gate.fail(with: FakeError("offline"))
        await load.value

        #expect(model.sessions.count == 4)
        #expect(model.errorMessage == "Could not load the reading log: offline")
        #expect(model.progress?.minutesToday == 10)
    }

    @Test func aCancelledLoadPublishesNothing() async throws {
        let gate = SuspensionGate<[ReadingSession]>()
        await service.enqueueLoad(.gate(gate))
        let load = Task { await model.load() }
        await gate.arrival()
        model.cancel()
        await load.value
        #expect(model.state == .idle)
        #expect(model.progress == nil)
    }
}
