import Domain
import Presentation

// MARK: - SettingsScreen

/// The reading settings as `shelf settings` shows them. Settings are read when the
/// model is made, so this screen has no loading state.
public struct SettingsScreen: RenderableScreen, Hashable {
    public let showFinished: Bool
    public let dailyGoalMinutes: Int
    public let error: String?

    @MainActor
    public init(_ model: ReadingSettingsViewModel) {
        showFinished = model.showFinished
        dailyGoalMinutes = model.dailyGoalMinutes
        error = model.errorMessage
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        var table = TextTable([.init("SETTING"), .init("VALUE")])
        table.append("show finished", Wording.yesNo(showFinished))
        table.append("daily goal", Wording.count(dailyGoalMinutes, "minute"))
        text.table(table)
        text.error(error)
        return text.text
    }

    private enum CodingKeys: String, CodingKey { case showFinished, dailyGoalMinutes, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(showFinished, forKey: .showFinished)
        try container.encode(dailyGoalMinutes, forKey: .dailyGoalMinutes)
        try container.encode(error, forKey: .error)
    }
}
