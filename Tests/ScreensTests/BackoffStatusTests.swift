import Domain
import Foundation
import Presentation
import Screens
import Testing
import TestSupport

/// `shelf status` shows a server's wait as the sync engine treats it: a deadline a day
/// away at most, however far out the store says.
@MainActor
@Suite("Rendering: the backoff deadline in the status")
struct BackoffStatusTests {
    @Test(arguments: [
        (253_402_300_799.0, 86_400),   // year 9999, from an older Shelf
        (9.2e15, 86_400),              // the largest a store date saturates to
        (3_600.0, 3_600),              // an hour from now: as it is
    ] as [(TimeInterval, Int)])
    func aDeadlineIsShownADayAwayAtMost(_ until: TimeInterval, _ secondsLeft: Int) async throws {
        let now = SampleShelf.now
        let deadline = until > 1e9 ? Date(timeIntervalSince1970: until) : now.addingTimeInterval(until)
        let model = SyncStatusViewModel(provider: FakeSyncStatusProvider(status: SyncStatus(backoffUntil: deadline)))
        await model.refresh()

        let json = try JSONSerialization.jsonObject(with: Data(try SyncStatusScreen(model, now: now).renderJSON().utf8)) as? [String: Any]
        let sync = try #require(json?["sync"] as? [String: Any])
        #expect(sync["backingOff"] as? Bool == true)
        #expect(sync["backoffSecondsLeft"] as? Int == secondsLeft)
        #expect(SyncStatusScreen(model, now: now).renderText(.plain).contains("backoff"))
    }
}
