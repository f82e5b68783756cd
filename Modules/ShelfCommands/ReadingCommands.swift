import ArgumentParsing
import Domain
import Presentation
import Screens

// MARK: - Reading log

// `shelf read MINUTES [--book ID] [--on DATE]`, `shelf today`, `shelf log [--days N]`.

struct ReadCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "read", abstract: "Log minutes of reading (a reading session).",
        discussion: """
        Sessions are only ever added, and sync like the rest: the minutes logged on every
        device add up.
        """,
        examples: [
            Example("Half an hour of reading today", "shelf read 30"),
            Example("25 minutes of one book, yesterday evening", "shelf read 25 --book b-42 --on 2026-11-30"),
        ])

    @Argument(help: "Minutes read: 1...1440.")
    var minutes: Int
    @Option(value: "id", help: "The book read (its id, a unique prefix of it, or its title).", completion: .ids(.books))
    var book: String?
    // NB: a day or a book id that breaks a Domain rule is invalid data (65), not a usage
    // error, so both are checked by Domain in `run`.
    @Option(value: "YYYY-MM-DD", help: "The day read on (default today).")
    var on: String?

    func run(_ context: CommandContext) async throws -> ExitCode {
        let day = try on.map { text in try ReadingDay(text) }
        let session = try context.session()
        var bookID: Book.ID?
        if let book { bookID = try await BookCommand.existingBook(book, context).id }
        // NB: logging needs no goal, so the preferences are not refreshed for it.
        let now = context.program.clock.now
        let model = ReadingProgressViewModel(service: session.repositories.readingLog, goal: .default, today: { ReadingDay(now()) })
        guard let logged = await model.log(minutes: minutes, bookID: bookID, on: day) else {
            throw ReadingLog.refusal(minutes: minutes, day: day, model)
        }
        try context.output.confirm(ChangeScreen.readingLogged(logged))
        return .success
    }
}

struct TodayCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "today", abstract: "Show today's reading against the daily goal, and the streak of days that met it.",
        examples: [Example("How today's reading stands", "shelf today")])

    func run(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = await ReadingLog.progressModel(context, session)
        await model.load()
        return try context.output.present(ReadingTodayScreen(model), loaded: model.state)
    }
}

struct LogCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "log", abstract: "List reading sessions by day, with totals.",
        discussion: """
        --sort takes a field (day, minutes, sessions); a leading '-' sorts descending,
        --reverse turns the order round. Without --sort the newest day comes first.
        --limit keeps the first N days of that order; the total is of the days listed.
        """,
        examples: [
            Example("The last thirty days", "shelf log --days 30"),
            Example("The three days with the most reading this year", "shelf log --days 365 --sort -minutes --limit 3"),
        ])

    @Option(
        value: "n", help: "The last N days, today included (default 7, at most 3660).",
        expecting: "1...3660", transform: { Int($0).flatMap { (1...3660).contains($0) ? $0 : nil } })
    var days: Int?
    @OptionGroup
    var list = ListOptions<LogSortField>(
        noun: "days", sortHelp: "Sort by day (the default, newest first), minutes or sessions; '-field' for descending.",
        reverseHelp: "Turn the order round.", completesFields: true)

    func run(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = await ReadingLog.progressModel(context, session)
        await model.load()
                let order = list.order(standard: ListOrder(.day, descending: true))
        let screen = ReadingLogScreen(model, days: days ?? 7, order: order, limit: list.limit)
        return try context.output.present(screen, loaded: model.state)
    }
}

// MARK: - Wiring

@MainActor
private enum ReadingLog {
    /// The model over the account's reading log, measured against the reader's goal.
    /// Settings that cannot be read (a goal another client broke) leave the default goal
    /// and a warning: the log itself is still there to show.
    static func progressModel(_ context: CommandContext, _ session: AccountSession) async -> ReadingProgressViewModel {
        await session.repositories.refreshPreferencesIfStale()
        let settings = ReadingSettingsViewModel(preferences: session.preferences)
        if let message = settings.errorMessage { context.output.warn("\(message); measuring against the default goal") }
        let now = context.program.clock.now
        return ReadingProgressViewModel(
            service: session.repositories.readingLog, goal: settings.settings.dailyGoal, today: { ReadingDay(now()) })
    }

    /// A refused session is the reader's input (65); anything else is the store (74).
    static func refusal(minutes: Int, day: ReadingDay?, _ model: ReadingProgressViewModel) -> CommandFailure {
        let message = model.errorMessage ?? "the session was not logged"
        let refused = !ReadingSession.minutesRange.contains(minutes) || day.map { $0 > model.today } == true
        return CommandFailure(refused ? .dataError : .ioError, message)
    }
}
