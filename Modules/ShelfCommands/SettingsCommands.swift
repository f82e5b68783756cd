import ArgumentParsing
import Domain
import Presentation
import Screens

// MARK: - shelf settings

/// Shows the settings, or changes them first. Every value is checked before any is
/// saved, so a refused goal leaves `--show-finished` unchanged too.
struct SettingsCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "settings", abstract: "Show or change reading settings.",
        examples: [
            Example("The settings", "shelf settings"),
            Example("Hide finished books and aim for half an hour a day", "shelf settings --show-finished off --daily-goal 30"),
        ])

    /// `on` or `off`, as the option is written.
    enum Switch: String, CaseIterable, ExpressibleByArgument {
        case on, off
    }

    @Option(value: "on|off", help: "Show finished books in lists.")
    var showFinished: Switch?
    @Option(value: "minutes", help: "Daily reading goal: 5...120 in steps of 5.")
    var dailyGoal: Int?

    func run(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        await session.repositories.refreshPreferencesIfStale()
        let model = ReadingSettingsViewModel(preferences: session.preferences)
        let goal = try dailyGoal.map { minutes in try DailyGoal(minutes: minutes) }
        guard showFinished != nil || goal != nil else {
            try context.output.show(SettingsScreen(model))
            return .success
        }
        if let showFinished, !model.setShowFinished(showFinished == .on) { throw failure(model) }
        if let goal, !model.setDailyGoal(minutes: goal.minutes) { throw failure(model) }
        try context.output.confirm(SettingsScreen(model))
        return .success
    }

    /// The values were checked, so what is left is the store failing to save them.
    @MainActor private func failure(_ model: ReadingSettingsViewModel) -> CommandFailure {
        CommandFailure(.ioError, model.errorMessage ?? "the settings were not saved")
    }
}
