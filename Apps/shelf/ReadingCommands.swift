import ArgumentParsing
import Domain
import Presentation

// MARK: - ReadingCommands

/// `shelf read MINUTES [--book ID] [--on DATE]`, `shelf today`, `shelf log [--days N]`.
@MainActor
enum ReadingCommands {
    static func read(_ context: CommandContext) async throws -> ExitCode {
        let raw = try context.argument("minutes")
        guard let minutes = Int(raw) else {
            throw ParseError.invalid("Invalid value '\(raw)' for <minutes>: expected a whole number")
        }
        let day = try context.invocation.option("on").map { text in try ReadingDay(text) }
        let session = try context.session()
        let bookID = try context.invocation.option("book").map { id in try RecordID.validate(id) }
        if let bookID { _ = try await LibraryCommands.existingBook(bookID, in: session) }
        // NB: logging needs no goal, so the preferences are not refreshed for it.
        let model = ReadingProgressModel(service: session.repositories.readingLog, goal: .default)
        guard let logged = await model.log(minutes: minutes, bookID: bookID, on: day) else {
            throw refusal(minutes: minutes, day: day, model)
        }
        try context.output.confirm(ChangeScreen.readingLogged(logged))
        return .success
    }

    static func today(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = await progressModel(context, session)
        await model.load()
        return try context.output.present(ReadingTodayScreen(model), loaded: model.state)
    }

    static func log(_ context: CommandContext) async throws -> ExitCode {
        let days = try context.integerOption("days") ?? 7
        guard (1...3660).contains(days) else {
            throw ParseError.invalid("Invalid value '\(days)' for '--days': expected 1...3660")
        }
        let session = try context.session()
        let model = await progressModel(context, session)
        await model.load()
        return try context.output.present(ReadingLogScreen(model, days: days), loaded: model.state)
    }

    // MARK: Wiring

    /// The model over the account's reading log, measured against the reader's goal.
    /// Settings that cannot be read (a goal another client broke) leave the default goal
    /// and a warning: the log itself is still there to show.
    private static func progressModel(_ context: CommandContext, _ session: AccountSession) async -> ReadingProgressModel {
        await session.repositories.refreshPreferencesIfStale()
        let settings = ReadingSettingsModel(preferences: session.preferences)
        if let message = settings.errorMessage { context.output.warn("\(message); measuring against the default goal") }
        return ReadingProgressModel(service: session.repositories.readingLog, goal: settings.settings.dailyGoal)
    }

    /// A refused session is the reader's input (65); anything else is the store (74).
    private static func refusal(minutes: Int, day: ReadingDay?, _ model: ReadingProgressModel) -> CommandFailure {
        let message = model.errorMessage ?? "the session was not logged"
        let refused = !ReadingSession.minutesRange.contains(minutes) || day.map { $0 > model.today } == true
        return CommandFailure(refused ? .dataError : .ioError, message)
    }
}
