import Domain
import Presentation

// MARK: - ReadingTodayScreen

/// `shelf today`: today's minutes against the daily goal, and the streak.
///
/// JSON: `{"state", "day", "minutesToday", "goalMinutes", "minutesLeft", "goalMet",
/// "streakDays", "error"}`.
public struct ReadingTodayScreen: RenderableScreen, Hashable {
    public let state: ScreenStatus
    public let progress: ReadingProgress?
    public let error: String?

    @MainActor
    public init(_ model: ReadingProgressViewModel) {
        state = ScreenStatus(model.state)
        progress = model.progress
        error = model.errorMessage
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        if let progress {
            let status = progress.goalMet
                ? "goal met"
                : "\(Wording.count(progress.minutesLeft, "minute")) to go"
            text.line("Today (\(progress.day)): \(progress.minutesToday) of \(Wording.count(progress.goalMinutes, "minute")), \(status)",
                      progress.goalMet ? .positive : nil)
            text.line("Streak: \(Wording.count(progress.streakDays, "day")) meeting the goal")
        } else if state == .loading {
            text.line("Loading the reading log...", .quiet)
        }
        text.error(error)
        return text.text
    }

    private enum CodingKeys: String, CodingKey {
        case state, day, minutesToday, goalMinutes, minutesLeft, goalMet, streakDays, error
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(progress?.day, forKey: .day)
        try container.encode(progress?.minutesToday, forKey: .minutesToday)
        try container.encode(progress?.goalMinutes, forKey: .goalMinutes)
        try container.encode(progress?.minutesLeft, forKey: .minutesLeft)
        try container.encode(progress?.goalMet, forKey: .goalMet)
        try container.encode(progress?.streakDays, forKey: .streakDays)
        try container.encode(error, forKey: .error)
    }
}

// MARK: - ReadingLogScreen

/// `shelf log [--days N]`: the sessions of the last N days, by day, with totals.
///
/// JSON: `{"state", "days": [{"day", "totalMinutes", "sessions": [{"id", "minutes",
/// "day", "bookID"}]}], "totalMinutes", "dayCount", "error"}`, newest day first unless
/// `--sort` says otherwise; `totalMinutes` is of the days listed.
public struct ReadingLogScreen: RenderableScreen, Hashable {
    public let state: ScreenStatus
    public let days: [ReadingLogDay]
    public let dayCount: Int
    public let error: String?
    private let hasValue: Bool
    /// How many days with reading there are before `--limit` cuts them, so the text's
    /// total does not pass for the whole period's.
    private let daysWithReading: Int

    @MainActor
    public init(
        _ model: ReadingProgressViewModel, days dayCount: Int,
        order: ListOrder<LogSortField> = .init(.day, descending: true), limit: Int? = nil
    ) {
        state = ScreenStatus(model.state)
        hasValue = model.state.hasValue
        let all = model.days(last: dayCount, order: order, limit: nil)
        days = limit.map { Array(all.prefix($0)) } ?? all
        daysWithReading = all.count
        self.dayCount = dayCount
        error = model.errorMessage
    }

    public var totalMinutes: Int { days.reduce(0) { $0 + $1.totalMinutes } }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        var table = TextTable([.init("DAY"), .init("MINUTES", .right), .init("SESSIONS")])
        for day in days {
            let sessions = day.sessions.map { session in
                session.bookID.map { "\(session.minutes) (\($0))" } ?? "\(session.minutes)"
            }
            table.append(day.day.description, String(day.totalMinutes), sessions.joined(separator: ", "))
        }
        text.list(
            status: state, hasValue: hasValue, noun: "reading sessions",
            table: days.isEmpty ? nil : table,
            empty: "No reading logged in the last \(Wording.count(dayCount, "day")).",
            summary: "\(Wording.count(totalMinutes, "minute")) " + (days.count < daysWithReading
                ? "on the \(days.count) days listed (of \(daysWithReading) with reading in the last \(Wording.count(dayCount, "day")))"
                : "in the last \(Wording.count(dayCount, "day"))"),
            error: error)
        return text.text
    }

    private enum CodingKeys: String, CodingKey { case state, days, totalMinutes, dayCount, error }
    private enum DayKeys: String, CodingKey { case day, totalMinutes, sessions }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        var list = container.nestedUnkeyedContainer(forKey: .days)
        for day in days {
            var entry = list.nestedContainer(keyedBy: DayKeys.self)
            try entry.encode(day.day, forKey: .day)
            try entry.encode(day.totalMinutes, forKey: .totalMinutes)
            try entry.encode(day.sessions.map(ReadingSessionView.init), forKey: .sessions)
        }
        try container.encode(totalMinutes, forKey: .totalMinutes)
        try container.encode(dayCount, forKey: .dayCount)
        try container.encode(error, forKey: .error)
    }
}

// MARK: - ReadingSessionView

/// A session's JSON: `{"id", "minutes", "day", "bookID"}` (`bookID` null when none).
public struct ReadingSessionView: Encodable, Hashable, Sendable {
    public let id: String
    public let minutes: Int
    public let day: String
    public let bookID: String?

    public init(_ session: ReadingSession) {
        id = session.id
        minutes = session.minutes
        day = session.day.description
        bookID = session.bookID
    }

    private enum CodingKeys: String, CodingKey { case id, minutes, day, bookID }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(minutes, forKey: .minutes)
        try container.encode(day, forKey: .day)
        try container.encode(bookID, forKey: .bookID)
    }
}
