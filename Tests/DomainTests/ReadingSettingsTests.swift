import Domain
import Foundation
import Testing

@Suite("Reading settings")
struct ReadingSettingsTests {
    @Test(arguments: stride(from: 5, through: 120, by: 5).map { $0 })
    func everyStepInRangeIsAccepted(_ minutes: Int) throws {
        #expect(try DailyGoal(minutes: minutes).minutes == minutes)
    }

    @Test(arguments: [0, 4, 7, 121, 125, 300, -5])
    func outOfRangeOrOffStepIsAnErrorNotClamped(_ minutes: Int) {
        #expect(throws: DomainError.dailyGoalOutOfRange(minutes)) { try DailyGoal(minutes: minutes) }
    }

    @Test func decodingRejectsOutOfRangeGoals() {
        let data = Data(#"{"showFinished":true,"dailyGoal":130}"#.utf8)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(ReadingSettings.self, from: data) }
    }

    @Test func settingsRoundTripThroughJSON() throws {
        let settings = ReadingSettings(showFinished: false, dailyGoal: try DailyGoal(minutes: 45))
        let data = try JSONEncoder().encode(settings)
        #expect(try JSONDecoder().decode(ReadingSettings.self, from: data) == settings)
    }

    @Test func defaultsAreSensible() {
        #expect(ReadingSettings.default.showFinished)
        #expect(ReadingSettings.default.dailyGoal.minutes == 20)
    }
}
