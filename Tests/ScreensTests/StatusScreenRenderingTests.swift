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
        let model = ReadingSettingsModel(preferences: FakePreferencesStore())
        try RenderingFixture.expect(SettingsScreen(model), matches: "settings-default")
    }

    @Test func settingsChanged() throws {
        let model = ReadingSettingsModel(preferences: FakePreferencesStore())
        model.setShowFinished(false)
        model.setDailyGoal(minutes: 45)
        try RenderingFixture.expect(SettingsScreen(model), matches: "settings-changed")
    }

    @Test func settingsRefusedGoal() throws {
        let model = ReadingSettingsModel(preferences: FakePreferencesStore())
        model.setDailyGoal(minutes: 300)
        try RenderingFixture.expect(SettingsScreen(model), matches: "settings-failed")
    }

    // MARK: Sync status

    @Test func syncStatusNeverSynced() async throws {
        let model = SyncStatusModel(provider: FakeSyncStatusProvider())
        await model.refresh()
        try RenderingFixture.expect(SyncStatusScreen(model, now: SampleShelf.now), matches: "sync-status-empty")
    }

    @Test func syncStatusLoading() async throws {
        let provider = FakeSyncStatusProvider()
        let model = SyncStatusModel(provider: provider)
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
        let model = SyncStatusModel(provider: provider)
        await model.refresh()
        try RenderingFixture.expect(SyncStatusScreen(model, now: SampleShelf.now), matches: "sync-status-failed")
    }

    @Test func syncStatusFull() async throws {
        let model = SyncStatusModel(provider: FakeSyncStatusProvider(status: SampleShelf.busySyncStatus))
        await model.refresh()
        try RenderingFixture.expect(SyncStatusScreen(model, now: SampleShelf.now), matches: "sync-status-full")
    }

    // MARK: Navigation (no loading state)

    @Test func navigationAtTheRoot() throws {
        let router = Router(preferences: FakePreferencesStore())
        try RenderingFixture.expect(NavigationScreen(router), matches: "navigation-empty")
    }

    @Test func navigationWithAPath() throws {
        let router = Router(preferences: FakePreferencesStore())
        router.open(url: "shelf://book/book-003")
        router.open(url: "shelf://author/Ursula%20K.%20Le%20Guin")
        router.push(.note("note-001"))
        try RenderingFixture.expect(NavigationScreen(router), matches: "navigation-full")
    }

    @Test func navigationAfterAMalformedLink() throws {
        let router = Router(preferences: FakePreferencesStore())
        router.open(url: "shelf://book/book-003")
        router.open(url: "shelf://book/has space")
        try RenderingFixture.expect(NavigationScreen(router), matches: "navigation-failed")
    }
}
