import Domain
import Observation

// MARK: - ReadingSettingsViewModel

/// The reader's settings — show finished books, the daily reading goal — saved in the
/// `PreferencesStore` so they hold across launches. This model is the settings' one
/// owner; others follow its changes through `onChange`.
///
/// A change is validated by the Domain (`DailyGoal`: 5...120 minutes in steps of 5)
/// and saved before it is shown: invalid input or a failed save sets `errorMessage`
/// and changes nothing.
@MainActor
@Observable
public final class ReadingSettingsViewModel {
    // MARK: State

    public private(set) var settings: ReadingSettings
    /// The last refused change or failed save; cleared by the next success.
    public private(set) var errorMessage: String?

    public var showFinished: Bool { settings.showFinished }
    public var dailyGoalMinutes: Int { settings.dailyGoal.minutes }

    /// Every daily goal a picker may offer: 5, 10, … 120.
    public static let dailyGoalChoices: [Int] = Array(stride(
        from: DailyGoal.range.lowerBound, through: DailyGoal.range.upperBound, by: DailyGoal.step
    ))

    // MARK: Dependencies

    private let preferences: any PreferencesStore
    @ObservationIgnored private let onChange: @MainActor (ReadingSettings) -> Void

    /// - Parameter onChange: called after every saved change (the library follows
    ///   `showFinished` through it).
    public init(
        preferences: any PreferencesStore,
        onChange: @escaping @MainActor (ReadingSettings) -> Void = { _ in }
    ) {
        self.preferences = preferences
        self.onChange = onChange
        do {
            settings = try preferences.readingSettings()
        } catch {
            settings = .default
            errorMessage = FailureMessage.make("read the reading settings", error)
        }
    }

    /// Reads the settings again (another process, or another device through a sync, may
    /// have changed them); a failed read keeps the settings shown and says why.
    public func reload() {
        do {
            settings = try preferences.readingSettings()
            errorMessage = nil
        } catch {
            errorMessage = FailureMessage.make("read the reading settings", error)
        }
    }

    // MARK: Intents

    /// Shows or hides finished books in the library.
    @discardableResult
    public func setShowFinished(_ show: Bool) -> Bool {
        var updated = settings
        updated.showFinished = show
        return save(updated, action: "change 'show finished'")
    }

    /// Sets the daily reading goal; anything outside 5...120 or off the 5-minute step
    /// is refused, not clamped.
    @discardableResult
    public func setDailyGoal(minutes: Int) -> Bool {
        let action = "change the daily goal"
        var updated = settings
        do {
            updated.dailyGoal = try DailyGoal(minutes: minutes)
        } catch {
            errorMessage = FailureMessage.make(action, error)
            return false
        }
        return save(updated, action: action)
    }

    // MARK: Saving

    private func save(_ updated: ReadingSettings, action: String) -> Bool {
        do {
            try preferences.setReadingSettings(updated)
        } catch {
            errorMessage = FailureMessage.make(action, error)
            return false
        }
        settings = updated
        errorMessage = nil
        onChange(updated)
        return true
    }
}
