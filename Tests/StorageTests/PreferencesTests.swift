import Domain
import Foundation
import Testing
import TestSupport
@testable import Storage

@Suite("Preferences")
struct PreferencesTests {
    // NB: the force try is safe: 45 is in 5...120 and a multiple of 5.
    private static let settings = ReadingSettings(showFinished: false, dailyGoal: try! DailyGoal(minutes: 45))
    private static let path: [Route] = [.book("book-001"), .author("Ursula K. Le Guin"), .note("note-007")]

    private func roundTrip(_ preferences: any PreferencesStore) throws {
        #expect(try preferences.favorites().isEmpty)
        #expect(try preferences.readingSettings() == .default)
        #expect(try preferences.routerPath().isEmpty)

        try preferences.setFavorites(["book-002", "book-001"])
        try preferences.setReadingSettings(Self.settings)
        try preferences.setRouterPath(Self.path)

        #expect(try preferences.favorites() == ["book-001", "book-002"])
        #expect(try preferences.readingSettings() == Self.settings)
        #expect(try preferences.routerPath() == Self.path)

        try preferences.setFavorites([])
        try preferences.setRouterPath([])
        #expect(try preferences.favorites().isEmpty)
        #expect(try preferences.routerPath().isEmpty)
    }

    @Test func sqlitePreferencesRoundTrip() throws {
        try roundTrip(SQLitePreferencesStore(store: try ShelfStore.inMemory()))
    }

    @Test func inMemoryPreferencesRoundTrip() throws {
        try roundTrip(InMemoryPreferencesStore())
    }

    @Test func sqlitePreferencesSurviveReopening() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("prefs.sqlite")
        do {
            let preferences = SQLitePreferencesStore(store: try ShelfStore(location: .file(path)))
            try preferences.setFavorites(["book-036"])
            try preferences.setReadingSettings(Self.settings)
            try preferences.setRouterPath(Self.path)
        }
        let preferences = SQLitePreferencesStore(store: try ShelfStore(location: .file(path)))
        #expect(try preferences.favorites() == ["book-036"])
        #expect(try preferences.readingSettings() == Self.settings)
        #expect(try preferences.routerPath() == Self.path)
    }

    @Test func anUnreadableValueIsReportedNotReplacedByTheDefault() throws {
        let store = try ShelfStore.inMemory()
        // A daily goal outside 5...120 cannot decode into a ReadingSettings.
        try store.write { tx in try tx.setPreference("reading_settings", Data(#"{"showFinished":true,"dailyGoal":300}"#.utf8)) }
        #expect(throws: StorageError.self) { try SQLitePreferencesStore(store: store).readingSettings() }
    }

    // MARK: Hand-over to the synced collection

    @Test func localFavoritesAndSettingsAreHandedOverOnceAndLeaveTheTable() throws {
        let store = try ShelfStore.inMemory()
        let preferences = SQLitePreferencesStore(store: store)
        try preferences.setFavorites(["b1"])
        try preferences.setReadingSettings(Self.settings)
        try preferences.setRouterPath(Self.path)

        let handed = try store.write { tx in try tx.takeLocalPreferencesForSync() }
        #expect(handed == LocalPreferences(favorites: ["b1"], settings: Self.settings))
        #expect(try store.write { tx in try tx.takeLocalPreferencesForSync() } == nil, "once")
        #expect(try preferences.favorites().isEmpty)
        #expect(try preferences.routerPath() == Self.path, "the router path stays")
    }

    @Test func aValueThatDoesNotDecodeIsLeftWhereItIsAndDoesNotBlockTheRest() throws {
        let store = try ShelfStore.inMemory()
        try SQLitePreferencesStore(store: store).setFavorites(["b1"])
        try store.write { tx in try tx.setPreference("reading_settings", Data(#"{"showFinished":true,"dailyGoal":300}"#.utf8)) }

        let handed = try store.write { tx in try tx.takeLocalPreferencesForSync() }

        #expect(handed == LocalPreferences(favorites: ["b1"], settings: nil))
        #expect(try store.read { try $0.preference("reading_settings") } != nil, "kept as it was")
        #expect(try store.read { try $0.hasLocalPreferencesToCarryOver() } == false)
    }

    @Test func inMemoryPreferencesStartFromTheGivenValues() {
        let preferences = InMemoryPreferencesStore(favorites: ["b1"], readingSettings: Self.settings, routerPath: Self.path)
        #expect(preferences.favorites() == ["b1"])
        #expect(preferences.readingSettings() == Self.settings)
        #expect(preferences.routerPath() == Self.path)
    }
}
