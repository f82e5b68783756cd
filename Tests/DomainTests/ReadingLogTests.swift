import Domain
import Testing

@Suite("Reading days, sessions and streaks")
struct ReadingLogTests {
    @Test(arguments: ["2026-02-29", "2026-13-01", "2026-1-01", "20260101", "", "2026-00-10", "abcd-ef-gh"])
    func malformedOrImpossibleDaysAreRefused(text: String) {
        #expect(throws: DomainError.invalidDay(text)) { try ReadingDay(text) }
    }

    @Test func dayArithmeticCrossesMonthsYearsAndLeapDays() throws {
        #expect(try ReadingDay("2024-03-01").previous.description == "2024-02-29")
        #expect(try ReadingDay("2026-01-01").previous.description == "2025-12-31")
        #expect(try ReadingDay("2026-12-31").adding(days: 1).description == "2027-01-01")
        #expect(try ReadingDay("2026-12-01").days(since: ReadingDay("2025-12-01")) == 365)
        #expect(try ReadingDay("2026-12-01") > ReadingDay("2026-11-30"))
    }

    @Test func sessionsRefuseMinutesOutsideOneDay() throws {
        let day = try ReadingDay("2026-12-01")
        #expect(throws: DomainError.invalidMinutes(0)) { try ReadingSession(id: "s", minutes: 0, day: day) }
        #expect(throws: DomainError.invalidMinutes(1441)) { try ReadingSession(id: "s", minutes: 1441, day: day) }
        #expect(throws: DomainError.invalidIdentifier("a b")) { try ReadingSession(id: "s", minutes: 5, day: day, bookID: "a b") }
    }

    @Test func aStreakIsBrokenByADayBelowTheGoalAndNotByAnUnfinishedToday() throws {
        let goal = try DailyGoal(minutes: 20)
        let sessions = try [
            ("2026-11-26", 40), ("2026-11-28", 20), ("2026-11-29", 10), ("2026-11-29", 10), ("2026-11-30", 25),
        ].enumerated().map { index, entry in try ReadingSession(id: "s\(index)", minutes: entry.1, day: ReadingDay(entry.0)) }

        let morning = ReadingLog.progress(sessions, goal: goal, today: try ReadingDay("2026-12-01"))
        #expect(morning.minutesToday == 0)
        #expect(morning.streakDays == 3, "28, 29 (two sessions) and 30 November; 27 November breaks it")

        let later = ReadingLog.progress(
            sessions + [try ReadingSession(id: "t", minutes: 20, day: ReadingDay("2026-12-01"))], goal: goal,
            today: try ReadingDay("2026-12-01"))
        #expect(later.goalMet)
        #expect(later.streakDays == 4)

        let dayAfterAGap = ReadingLog.progress(sessions, goal: goal, today: try ReadingDay("2026-12-02"))
        #expect(dayAfterAGap.streakDays == 0, "1 December had no reading")
    }
}
