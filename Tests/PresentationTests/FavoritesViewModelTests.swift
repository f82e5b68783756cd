import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Favorites view model")
struct FavoritesViewModelTests {
    let file = FakePreferencesStore.Storage()

    @Test func toggleAddsAndRemoves() {
        let model = FavoritesViewModel(preferences: FakePreferencesStore(storage: file))

        #expect(model.toggle("book-003"))
        #expect(model.toggle("book-001"))
        #expect(model.isFavorite("book-003"))
        #expect(model.sortedIDs == ["book-001", "book-003"])

        #expect(model.toggle("book-003") == false)
        #expect(model.sortedIDs == ["book-001"])
    }

    @Test func favoritesSurviveARestart() {
        let before = FavoritesViewModel(preferences: FakePreferencesStore(storage: file))
        before.toggle("book-004")
        before.toggle("book-005")

        // A new launch: a new store over the same preferences "file", a new model.
        let after = FavoritesViewModel(preferences: FakePreferencesStore(storage: file))

        #expect(after.favoriteIDs == ["book-004", "book-005"])
        #expect(file.snapshot.favorites == ["book-004", "book-005"])
    }

    @Test func reloadShowsWhatAnotherProcessSaved() {
        let shown = FavoritesViewModel(preferences: FakePreferencesStore(storage: file))
        shown.toggle("book-001")
        // Another process over the same preferences: `shelf favorite` in another terminal.
        let other = FavoritesViewModel(preferences: FakePreferencesStore(storage: file))
        other.toggle("book-002")
        other.toggle("book-001")
        #expect(shown.favoriteIDs == ["book-001"])

        shown.reload()

        #expect(shown.favoriteIDs == ["book-002"])
        #expect(shown.errorMessage == nil)
    }

    @Test func favoritesListFollowsTheLibraryOrder() throws {
        let model = FavoritesViewModel(preferences: FakePreferencesStore(storage: file))
        model.toggle("book-005")
        model.toggle("book-001")

        #expect(model.favorites(in: try SampleShelf.books()).map(\.id) == ["book-001", "book-005"])
    }

    @Test func aFailedSaveChangesNothingAndSaysWhy() {
        let store = FakePreferencesStore(storage: file)
        let model = FavoritesViewModel(preferences: store)
        model.toggle("book-001")
        store.failWrites(with: FakeError("disk full"))

        #expect(model.toggle("book-003") == false)

        #expect(model.favoriteIDs == ["book-001"])
        #expect(model.errorMessage == "Could not add the favorite: disk full")
        #expect(file.snapshot.favorites == ["book-001"])
    }

    @Test func aMalformedIDIsRefused() {
        let model = FavoritesViewModel(preferences: FakePreferencesStore(storage: file))

        #expect(model.set("not an id", favorite: true) == false)

        #expect(model.favoriteIDs.isEmpty)
        #expect(model.errorMessage?.hasPrefix("Could not add the favorite: invalid id 'not an id'") == true)
    }

    @Test func unreadableFavoritesStartEmptyWithAMessage() {
        let store = FakePreferencesStore(storage: file)
        store.failReads(with: FakeError("database is locked"))

        let model = FavoritesViewModel(preferences: store)

        #expect(model.favoriteIDs.isEmpty)
        #expect(model.errorMessage == "Could not read the favorites: database is locked")
    }
}
