import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Reading settings model")
struct ReadingSettingsViewModelTests {
    let file = FakePreferencesStore.Storage()

    @Test func startsFromTheSavedSettings() throws {
        try FakePreferencesStore(storage: file)
            .setReadingSettings(ReadingSettings(showFinished: false, dailyGoal: DailyGoal(minutes: 45)))

        let model = ReadingSettingsViewModel(preferences: FakePreferencesStore(storage: file))

        #expect(model.showFinished == false)
        #expect(model.dailyGoalMinutes == 45)
    }

    @Test(arguments: [5, 60, 120])
    func aGoalInRangeIsSavedAndSurvivesARestart(minutes: Int) {
        let model = ReadingSettingsViewModel(preferences: FakePreferencesStore(storage: file))

        #expect(model.setDailyGoal(minutes: minutes))

        #expect(model.dailyGoalMinutes == minutes)
        #expect(ReadingSettingsViewModel(preferences: FakePreferencesStore(storage: file)).dailyGoalMinutes == minutes)
    }

    @Test(arguments: [0, 4, 7, 121, 125, -5])
    func anInvalidGoalSetsAnErrorAndChangesNothing(minutes: Int) {
        let store = FakePreferencesStore(storage: file)
        let model = ReadingSettingsViewModel(preferences: store)

        #expect(model.setDailyGoal(minutes: minutes) == false)

        #expect(model.dailyGoalMinutes == DailyGoal.default.minutes)
        #expect(model.errorMessage == "Could not change the daily goal: daily goal must be 5...120 minutes in steps of 5, got \(minutes)")
        #expect(store.writeCount == 0)
        #expect(file.snapshot.readingSettings == .default)
    }

    @Test func aValidChangeClearsTheError() {
        let model = ReadingSettingsViewModel(preferences: FakePreferencesStore(storage: file))
        model.setDailyGoal(minutes: 3)
        #expect(model.errorMessage != nil)

        model.setDailyGoal(minutes: 30)

        #expect(model.errorMessage == nil)
    }

    @Test func showFinishedIsSavedAndReported() {
        var reported: [ReadingSettings] = []
        let model = ReadingSettingsViewModel(preferences: FakePreferencesStore(storage: file)) { reported.append($0) }

        #expect(model.setShowFinished(false))

        #expect(model.showFinished == false)
        #expect(file.snapshot.readingSettings.showFinished == false)
        #expect(reported.map(\.showFinished) == [false])
    }

    @Test func aFailedSaveChangesNothingAndIsNotReported() {
        var reported: [ReadingSettings] = []
        let store = FakePreferencesStore(storage: file)
        let model = ReadingSettingsViewModel(preferences: store) { reported.append($0) }
        store.failWrites(with: FakeError("read-only file system"))

        #expect(model.setShowFinished(false) == false)

        #expect(model.showFinished == true)
        #expect(model.errorMessage == "Could not change 'show finished': read-only file system")
        #expect(reported.isEmpty)
    }

    @Test func offersEveryStepOfTheRange() {
        #expect(ReadingSettingsViewModel.dailyGoalChoices.first == 5)
        #expect(ReadingSettingsViewModel.dailyGoalChoices.last == 120)
        #expect(ReadingSettingsViewModel.dailyGoalChoices.count == 24)
    }
}
