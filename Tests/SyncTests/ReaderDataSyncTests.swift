import Domain
import Foundation
import Repositories
import Storage
import Sync
import TestSupport
import Testing

/// Favorites, settings and the reading log of one reader on two devices, through a real
/// Kinto: changes to different fields of the preferences record both survive, and the
/// sessions of both devices add up.
@Suite("Reader's data on two devices (real Kinto)")
struct ReaderDataSyncTests {
    let server: KintoServer

    init() throws {
        server = try KintoServer.shared()
    }

    private func devices() async throws -> (SyncDevice, SyncDevice) {
        let user = try await server.newUser(prefix: "prefs")
        return (try SyncDevice(user: user, server: server), try SyncDevice(user: user, server: server))
    }

    private func synced(_ device: SyncDevice) async {
        let report = await device.sync()
        #expect(report.outcome == .synced, "\(report.message)")
    }

    @Test func aFavoriteOnOneDeviceAndAGoalOnTheOtherBothSurviveOnBoth() async throws {
        let (a, b) = try await devices()
        try a.saveBook("b1", title: "Dune")
        try a.saveBook("b2", title: "Solaris", author: "Stanisław Lem")
        await synced(a)
        await synced(b)
        let onA = SyncedPreferencesStore(store: a.store), onB = SyncedPreferencesStore(store: b.store)

        // First edits: neither device has a preferences record yet, so both create one.
        try onA.setFavorites(["b1"])
        try onB.setReadingSettings(ReadingSettings(showFinished: true, dailyGoal: try DailyGoal(minutes: 45)))
        await synced(a)
        let second = await b.sync()
        #expect(second.outcome == .synced)
        #expect(second.collections["preferences"]?.merged == 1, "b's create met a's record and merged field by field")
        await synced(a)

        for device in [onA, onB] {
            #expect(try device.favorites() == ["b1"])
            #expect(try device.readingSettings().dailyGoal.minutes == 45)
        }

        // Then edits of the synced record on both: a hides finished books, b favorites b2.
        try onA.setReadingSettings(ReadingSettings(showFinished: false, dailyGoal: try DailyGoal(minutes: 45)))
        try onB.setFavorites(["b1", "b2"])
        await synced(a)
        await synced(b)
        await synced(a)

        for device in [onA, onB] {
            #expect(try device.favorites() == ["b1", "b2"])
            #expect(try device.readingSettings() == ReadingSettings(showFinished: false, dailyGoal: try DailyGoal(minutes: 45)))
        }
        #expect(try a.store.conflictCount() == 0 && b.store.conflictCount() == 0)
    }

    @Test func readingSessionsFromBothDevicesAddUpInToday() async throws {
        let (a, b) = try await devices()
        let logA = ReadingLogRepository(store: a.store, refresher: FakeCollectionRefresher())
        let logB = ReadingLogRepository(store: b.store, refresher: FakeCollectionRefresher())
        let today = try ReadingDay("2026-12-01")
        let goal = try DailyGoal(minutes: 30)

        _ = try await logA.logSession(minutes: 20, day: today, bookID: nil)
        _ = try await logA.logSession(minutes: 30, day: today.previous, bookID: nil)
        _ = try await logB.logSession(minutes: 15, day: today, bookID: nil)
        await synced(a)
        await synced(b)
        await synced(a)
        await logA.invalidate()
        await logB.invalidate()

        for log in [logA, logB] {
            let progress = ReadingLog.progress(try await log.sessions(forceRefresh: false), goal: goal, today: today)
            #expect(progress.minutesToday == 35)
            #expect(progress.goalMet)
            #expect(progress.streakDays == 2)
        }
        #expect(try a.store.conflictCount() == 0 && b.store.conflictCount() == 0)
    }
}
