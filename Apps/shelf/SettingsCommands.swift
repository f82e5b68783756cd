import ArgumentParsing
import Domain
import Presentation

// MARK: - SettingsCommands

/// `shelf settings [--show-finished on|off] [--daily-goal MINUTES]`.
@MainActor
enum SettingsCommands {
    /// Shows the settings, or changes them first. Every value is checked before any is
    /// saved, so a refused goal leaves `--show-finished` unchanged too.
    static func settings(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        await session.repositories.refreshPreferencesIfStale()
        let model = ReadingSettingsModel(preferences: session.preferences)
        let showFinished = context.invocation.option("show-finished").map { $0 == "on" }
        let dailyGoal = try context.integerOption("daily-goal").map { minutes in try DailyGoal(minutes: minutes) }
        guard showFinished != nil || dailyGoal != nil else {
            try context.output.show(SettingsScreen(model))
            return .success
        }
        if let showFinished, !model.setShowFinished(showFinished) { throw failure(model) }
        if let dailyGoal, !model.setDailyGoal(minutes: dailyGoal.minutes) { throw failure(model) }
        try context.output.confirm(SettingsScreen(model))
        return .success
    }

    /// The values were checked, so what is left is the store failing to save them.
    private static func failure(_ model: ReadingSettingsModel) -> CommandFailure {
        CommandFailure(.ioError, model.errorMessage ?? "the settings were not saved")
    }
}
