import Domain
import Foundation
import Repositories
import Storage
import Testing
import TestSupport

/// Favorites and settings as the synced `preferences` record, and book removal with
/// what refers to the book, over an in-memory store.
@Suite("Reader's data: synced preferences and book removal")
struct ReaderDataTests {
    private func preferencesRecord(_ store: ShelfStore) throws -> [String: Any] {
        try Wire.fields(try store.record(.preferences, id: ReaderPreferences.recordID))
    }

    // MARK: Preferences

    @Test func aChangeWritesOnlyTheFieldsItChangesAndQueuesThem() throws {
        let store = try ShelfStore.inMemory()
        let preferences = SyncedPreferencesStore(store: store)

        try preferences.setReadingSettings(ReadingSettings(showFinished: true, dailyGoal: try DailyGoal(minutes: 45)))
        try preferences.setFavorites(["b-1", "b-2"])
        try preferences.setFavorites(["b-2"])

        let fields = try preferencesRecord(store)
        #expect(fields["daily_goal_minutes"] as? Int == 45)
        #expect(fields["show_finished"] == nil, "unchanged from the default, so never written (another device's choice stays)")
        #expect(fields["favorite:b-2"] as? Bool == true)
        #expect(fields["favorite:b-1"] == nil, "an unfavorited book's field is removed")
        #expect(try store.pendingCount(in: .preferences) == 1)
        #expect(try preferences.favorites() == ["b-2"])
        #expect(try preferences.readingSettings().dailyGoal.minutes == 45)
    }

    @Test func settingTheSameValuesAgainQueuesNothing() throws {
        let store = try ShelfStore.inMemory()
        let preferences = SyncedPreferencesStore(store: store)
        try preferences.setReadingSettings(.default)
        try preferences.setFavorites([])
        #expect(try store.record(.preferences, id: ReaderPreferences.recordID) == nil)
        #expect(try store.pendingCount() == 0)
    }

    @Test func fieldsFromANewerClientAreKept() throws {
        let store = try ShelfStore.inMemory()
        try store.pull([try Wire.record(.preferences, ["id": "reader", "theme": "sepia", "favorite:b-9": true], lastModified: 10)],
                       into: .preferences)
        let preferences = SyncedPreferencesStore(store: store)
        #expect(try preferences.favorites() == ["b-9"])
        try preferences.setFavorites(["b-9", "b-1"])
        let fields = try preferencesRecord(store)
        #expect(fields["theme"] as? String == "sepia")
        #expect(fields["favorite:b-1"] as? Bool == true)
    }

    @Test func aGoalAnotherClientBrokeIsReportedNotReplaced() throws {
        let store = try ShelfStore.inMemory()
        try store.pull([try Wire.record(.preferences, ["id": "reader", "daily_goal_minutes": 300], lastModified: 10)], into: .preferences)
        let preferences = SyncedPreferencesStore(store: store)
        #expect(throws: RepositoryError.self) { try preferences.readingSettings() }
        #expect(try preferences.favorites().isEmpty, "favorites still read")

        // The reader can still repair it, and favorite next to it.
        try preferences.setFavorites(["b-1"])
        try preferences.setReadingSettings(.default)
        #expect(try preferences.readingSettings() == .default)
        #expect(try preferences.favorites() == ["b-1"])
    }

    @Test func localFavoritesAndSettingsFromBeforeAreCarriedOverOnce() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("carry-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: path) }
        // GIVEN a store whose favorites and settings were kept only on this device
        do {
            let old = SQLitePreferencesStore(store: try ShelfStore(location: .file(path)))
            try old.setFavorites(["b-1", "b-2"])
            try old.setReadingSettings(ReadingSettings(showFinished: false, dailyGoal: .default))
            try old.setRouterPath([.book("b-1")])
        }
        let store = try ShelfStore(location: .file(path))

        // WHEN it is first used with synced preferences
        let preferences = SyncedPreferencesStore(store: store)
        #expect(try preferences.favorites() == ["b-1", "b-2"])

        // THEN they are in the synced record, queued, and the hand-over does not run again
        let fields = try preferencesRecord(store)
        #expect(fields["show_finished"] as? Bool == false)
        #expect(fields["daily_goal_minutes"] == nil, "the default goal is not sent")
        #expect(try store.pendingCount(in: .preferences) == 1)
        try preferences.setFavorites([])
        #expect(try SyncedPreferencesStore(store: store).favorites().isEmpty, "an unfavorite is not undone by a second hand-over")
        #expect(try preferences.routerPath() == [.book("b-1")], "the router path stays on the device")
        #expect(try SQLitePreferencesStore(store: store).favorites().isEmpty, "the old copy is gone")
    }

    // MARK: Book removal

    /// A book with two notes, one session and a favorite, plus an unrelated note and session.
    private func library() async throws -> (ShelfStore, AccountRepositories, Book) {
        let store = try ShelfStore.inMemory()
        let repositories = AccountRepositories(store: store, refresher: FakeCollectionRefresher())
        let book = try await repositories.books.addBook(title: "Dune", author: "Frank Herbert")
        let other = try await repositories.books.addBook(title: "Solaris", author: "Stanisław Lem")
        _ = try await repositories.notes.addNote(title: "Spice", body: "must flow", bookID: book.id)
        _ = try await repositories.notes.addNote(title: "Arrakis", body: "", bookID: book.id)
        _ = try await repositories.notes.addNote(title: "Ocean", body: "", bookID: other.id)
        let day = try ReadingDay("2026-12-01")
        _ = try await repositories.readingLog.logSession(minutes: 20, day: day, bookID: book.id)
        _ = try await repositories.readingLog.logSession(minutes: 10, day: day, bookID: nil)
        try repositories.preferences.setFavorites([book.id, other.id])
        return (store, repositories, book)
    }

    @Test func aBookWithNotesIsNotRemovedAndTheRefusalSaysHowMany() async throws {
        let (store, repositories, book) = try await library()
        let pending = try store.pendingCount()

        await #expect(throws: BookRemovalError(bookID: book.id, references: BookReferences(notes: 2, sessions: 1, isFavorite: true))) {
            try await repositories.removeBook(id: book.id, mode: .refuseIfReferenced)
        }
        #expect(BookRemovalError(bookID: book.id, references: BookReferences(notes: 2, sessions: 1, isFavorite: true)).description
            == "book '\(book.id)' has 2 notes, 1 reading session and a favorite; nothing was removed")
        #expect(try await repositories.books.book(id: book.id) != nil)
        #expect(try store.pendingCount() == pending)
    }

    @Test func cascadeRemovesTheNotesSessionsAndFavoriteTooInOneChangeSet() async throws {
        let (store, repositories, book) = try await library()

        let result = try await repositories.removeBook(id: book.id, mode: .cascade)

        #expect(result.notesRemoved == 2 && result.sessionsRemoved == 1 && result.favoriteRemoved)
        #expect(try await repositories.books.book(id: book.id) == nil)
        #expect(try await repositories.notes.loadNotes().map(\.title) == ["Ocean"])
        #expect(try await repositories.readingLog.sessions(forceRefresh: false).map(\.minutes) == [10])
        #expect(try repositories.preferences.favorites().count == 1)
        #expect(try repositories.references(toBook: book.id) == BookReferences())
        // Never synced: the creations and deletions cancel out; only the survivors are queued.
        #expect(try store.pendingCount() == 1 + 1 + 1 + 1)
    }

    @Test func keepNotesDetachesThemAndTheSessionsAndDropsTheFavorite() async throws {
        let (_, repositories, book) = try await library()

        let result = try await repositories.removeBook(id: book.id, mode: .keepNotes)

        #expect(result.notesDetached == 2 && result.sessionsDetached == 1 && result.favoriteRemoved)
        let notes = try await repositories.notes.loadNotes()
        #expect(notes.count == 3)
        #expect(notes.filter { $0.title != "Ocean" }.allSatisfy { $0.bookID == nil })
        let sessions = try await repositories.readingLog.sessions(forceRefresh: false)
        #expect(sessions.map(\.minutes).reduce(0, +) == 30, "the minutes still count")
        #expect(sessions.allSatisfy { $0.bookID == nil })
        #expect(try !repositories.preferences.favorites().contains(book.id))
    }

    @Test func aBookNothingRefersToIsRemovedWithoutAFlag() async throws {
        let store = try ShelfStore.inMemory()
        let repositories = AccountRepositories(store: store, refresher: FakeCollectionRefresher())
        let book = try await repositories.books.addBook(title: "Kindred", author: "Octavia E. Butler")
        let result = try await repositories.removeBook(id: book.id, mode: .refuseIfReferenced)
        #expect(result == BookRemovalResult(bookID: book.id, mode: .refuseIfReferenced))
        await #expect(throws: RepositoryError.notFound(.books, id: book.id)) {
            try await repositories.removeBook(id: book.id, mode: .cascade)
        }
    }
}
