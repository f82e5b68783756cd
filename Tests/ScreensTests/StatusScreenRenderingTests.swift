import Domain
import Foundation
import Presentation
import Screens
import Testing
import TestSupport

/// The screens that are not lists — settings, sync status, navigation — in each of
/// their states, against the files in `Fixtures/rendering/`.
@MainActor
@Suite("Rendering: settings, status, navigation")
struct StatusScreenRenderingTests {
    // MARK: Settings (read synchronously: no loading state)

    @Test func settingsDefault() throws {
        let model = ReadingSettingsViewModel(preferences: FakePreferencesStore())
        try RenderingFixture.expect(SettingsScreen(model), matches: "settings-default")
    }

    @Test func settingsChanged() throws {
        let model = ReadingSettingsViewModel(preferences: FakePreferencesStore())
        model.setShowFinished(false)
        model.setDailyGoal(minutes: 45)
        try RenderingFixture.expect(SettingsScreen(model), matches: "settings-changed")
    }

    @Test func settingsRefusedGoal() throws {
        let model = ReadingSettingsViewModel(preferences: FakePreferencesStore())
        model.setDailyGoal(minutes: 300)
        try RenderingFixture.expect(SettingsScreen(model), matches: "settings-failed")
    }

    // MARK: Sync status

    @Test func syncStatusNeverSynced() async throws {
        let model = SyncStatusViewModel(provider: FakeSyncStatusProvider())
        await model.refresh()
        try RenderingFixture.expect(SyncStatusScreen(model, now: SampleShelf.now), matches: "sync-status-empty")
    }

    @Test func syncStatusLoading() async throws {
        let provider = FakeSyncStatusProvider()
        let model = SyncStatusViewModel(provider: provider)
        let gate = SuspensionGate<SyncStatus>()
        await provider.enqueue(.gate(gate))
        let load = Task { await model.refresh() }
        await gate.arrival()

        try RenderingFixture.expect(SyncStatusScreen(model, now: SampleShelf.now), matches: "sync-status-loading")
        await gate.open(with: SyncStatus())
        await load.value
    }

    @Test func syncStatusFailed() async throws {
        let provider = FakeSyncStatusProvider()
        await provider.enqueue(.failure(FakeError("no local store for account 'ana': run 'shelf sync' first")))
        let model = SyncStatusViewModel(provider: provider)
        await model.refresh()
        try RenderingFixture.expect(SyncStatusScreen(model, now: SampleShelf.now), matches: "sync-status-failed")
    }

    @Test func syncStatusFull() async throws {
        let model = SyncStatusViewModel(provider: FakeSyncStatusProvider(status: SampleShelf.busySyncStatus))
        await model.refresh()
        try RenderingFixture.expect(SyncStatusScreen(model, now: SampleShelf.now), matches: "sync-status-full")
    }

    /// While the worker rests after idle runs the status says so (why the last sync is older
    /// than the cron period); a device that never rests shows no such row.
    @Test func syncStatusWhileTheWorkerRests() async throws {
        let model = SyncStatusViewModel(provider: FakeSyncStatusProvider(status: SyncStatus(lastSuccess: SampleShelf.now, restingTicks: 2)))
        await model.refresh()
        let screen = SyncStatusScreen(model, now: SampleShelf.now)
        let text = screen.renderText(RenderOptions(color: false))
        #expect(text.contains("resting"), "\(text)")
        #expect(text.contains("resting       2 more ticks; a local change goes at the next tick\n"), "\(text)")
        #expect(screen.sync?.restingTicks == 2)
        let never = SyncStatusViewModel(provider: FakeSyncStatusProvider(status: SyncStatus(lastSuccess: SampleShelf.now)))
        await never.refresh()
        #expect(!SyncStatusScreen(never, now: SampleShelf.now).renderText(RenderOptions(color: false)).contains("resting"))
    }

    // MARK: Navigation (no loading state)

    @Test func navigationAtTheRoot() throws {
        let router = Router(preferences: FakePreferencesStore(), places: FakePlaceService())
        try RenderingFixture.expect(NavigationScreen(router), matches: "navigation-empty")
    }

    @Test func navigationWithAPath() async throws {
        let places = FakePlaceService(books: try SampleShelf.books(), notes: try SampleShelf.notes(), favorites: ["book-005"])
        let router = Router(preferences: FakePreferencesStore(), places: places)
        await router.open(url: "shelf://book/book-005")
        await router.open(url: "shelf://author/Ursula%20K.%20Le%20Guin")
        let titles = try await places.titles(of: router.path)
        try RenderingFixture.expect(NavigationScreen(router, titles: titles), matches: "navigation-author")
        let note = try #require(try SampleShelf.notes().first { $0.bookID != nil })
        await router.open(url: "shelf://note/\(note.id)")
        try RenderingFixture.expect(NavigationScreen(router, titles: try await places.titles(of: router.path)), matches: "navigation-full")
        router.pop()
        router.pop()
        await router.showDestination()
        try RenderingFixture.expect(
            NavigationScreen(router, titles: try await places.titles(of: router.path)), matches: "navigation-book")
    }

    @Test func navigationAfterAMalformedLink() async throws {
        let router = Router(preferences: FakePreferencesStore(), places: FakePlaceService(books: try SampleShelf.books()))
        await router.open(url: "shelf://book/book-003")
        await router.open(url: "shelf://book/has space")
        try RenderingFixture.expect(NavigationScreen(router), matches: "navigation-failed")
    }
}
