// MARK: - ReadingProgress

/// Today's reading against the daily goal, and the streak of days that met it.
public struct ReadingProgress: Hashable, Sendable, Codable {
    public var day: ReadingDay
    public var minutesToday: Int
    public var goalMinutes: Int
    /// Consecutive days that met the goal, ending today — or yesterday while today's
    /// goal is not met yet (a streak is not broken before the day is over).
    public var streakDays: Int

    public var goalMet: Bool { minutesToday >= goalMinutes }
    /// Minutes still to read today; 0 once the goal is met.
    public var minutesLeft: Int { max(0, goalMinutes - minutesToday) }

    public init(day: ReadingDay, minutesToday: Int, goalMinutes: Int, streakDays: Int) {
        self.day = day
        self.minutesToday = minutesToday
        self.goalMinutes = goalMinutes
        self.streakDays = streakDays
    }
}

// MARK: - ReadingLog

/// The rules that turn sessions into days, totals and streaks.
///
/// The goal a streak is measured against is the current one: Shelf keeps no history
/// of goals, so raising the goal can shorten the streak shown.
public enum ReadingLog {
    /// Minutes per day, summed over every session (from every device).
    public static func minutesByDay(_ sessions: [ReadingSession]) -> [ReadingDay: Int] {
        var totals: [ReadingDay: Int] = [:]
        for session in sessions { totals[session.day, default: 0] += session.minutes }
        return totals
    }

    /// Today's progress and the current streak.
    public static func progress(_ sessions: [ReadingSession], goal: DailyGoal, today: ReadingDay) -> ReadingProgress {
        let totals = minutesByDay(sessions)
        let minutesToday = totals[today] ?? 0
        var day = minutesToday >= goal.minutes ? today : today.previous
        var streak = 0
        // Bounded by the number of days with any reading: a day without enough ends it.
        while let minutes = totals[day], minutes >= goal.minutes {
            streak += 1
            day = day.previous
        }
        return ReadingProgress(day: today, minutesToday: minutesToday, goalMinutes: goal.minutes, streakDays: streak)
    }

    /// The sessions of the last `days` days up to `today` (today included), grouped by
    /// day, newest day first; each day's sessions in the order they were given.
    public static func days(_ sessions: [ReadingSession], last days: Int, today: ReadingDay) -> [ReadingLogDay] {
        let first = today.adding(days: -(max(1, days) - 1))
        var grouped: [ReadingDay: [ReadingSession]] = [:]
        for session in sessions where session.day >= first && session.day <= today {
            grouped[session.day, default: []].append(session)
        }
        return grouped.keys.sorted(by: >).map { day in
            // NB: the force unwrap is safe: `day` is a key of `grouped`.
            ReadingLogDay(day: day, sessions: grouped[day]!)
        }
    }
}

// MARK: - Sorting the log

extension [ReadingLogDay] {
    /// The days in `order`, ties broken by the day in the same direction, cut at `limit`.
    ///
    /// NB: sorted here, not in the store's query: a row is a day's total over its
    /// sessions, and the log's model already holds every session (streaks and the goal
    /// need them), so there is nothing left for a query to spare; `--days` bounds the
    /// rows to 3660.
    public func sorted(_ order: ListOrder<LogSortField>, limit: Int? = nil) -> [ReadingLogDay] {
        let sorted = self.sorted { a, b in
            let ascending: Bool
            switch order.field {
            case .day: ascending = a.day < b.day
            case .minutes: ascending = (a.totalMinutes, a.day) < (b.totalMinutes, b.day)
            case .sessions: ascending = (a.sessions.count, a.day) < (b.sessions.count, b.day)
            }
            let equal = a.day == b.day
            return equal ? false : (order.descending ? !ascending : ascending)
        }
        return limit.map { Array(sorted.prefix(Swift.max(0, $0))) } ?? sorted
    }
}

/// One day of the reading log.
public struct ReadingLogDay: Hashable, Sendable, Codable {
    public var day: ReadingDay
    public var sessions: [ReadingSession]
    public var totalMinutes: Int { sessions.reduce(0) { $0 + $1.minutes } }

    public init(day: ReadingDay, sessions: [ReadingSession]) {
        self.day = day
        self.sessions = sessions
    }
}
