import Domain
import Foundation
import Presentation
import Screens
import Testing
import TestSupport

/// Every list screen in its empty, loading, failed and full state, against the files
/// in `Fixtures/rendering/`.
@MainActor
@Suite("Rendering: list screens")
struct ListScreenRenderingTests {
    // MARK: Library

    @Test func libraryEmpty() async throws {
        let model = LibraryViewModel(service: FakeBookService(), preferences: FakePreferencesStore())
        await model.refresh()
        try RenderingFixture.expect(LibraryScreen(model), matches: "library-empty")
    }

    @Test func libraryLoading() async throws {
        let service = FakeBookService()
        let model = LibraryViewModel(service: service, preferences: FakePreferencesStore())
        let gate = SuspensionGate<[Book]>()
        await service.enqueueLoad(.gate(gate))
        let load = Task { await model.refresh() }
        await gate.arrival()

        try RenderingFixture.expect(LibraryScreen(model), matches: "library-loading")
        await gate.open(with: [])
        await load.value
    }

    @Test func libraryFailed() async throws {
        let service = FakeBookService()
        await service.enqueueLoad(.failure(FakeError("could not connect to 127.0.0.1:8888 (connection refused)")))
        let model = LibraryViewModel(service: service, preferences: FakePreferencesStore())
        await model.refresh()
        try RenderingFixture.expect(LibraryScreen(model), matches: "library-failed")
    }

    @Test func libraryFull() async throws {
        let model = LibraryViewModel(service: FakeBookService(books: try SampleShelf.books()), preferences: FakePreferencesStore())
        await model.refresh()
        try RenderingFixture.expect(LibraryScreen(model), matches: "library-full")
    }

    @Test func libraryRefreshFailedKeepsTheBooks() async throws {
        let service = FakeBookService(books: try SampleShelf.books())
        let model = LibraryViewModel(service: service, preferences: FakePreferencesStore())
        await model.refresh()
        await service.enqueueLoad(.failure(FakeError("the server did not answer in 30 s")))
        await model.refresh(force: true)
        try RenderingFixture.expect(LibraryScreen(model), matches: "library-refresh-failed")
    }

    @Test func libraryFiltered() async throws {
        let preferences = FakePreferencesStore()
        try preferences.setReadingSettings(ReadingSettings(showFinished: false))
        let model = LibraryViewModel(service: FakeBookService(books: try SampleShelf.books()), preferences: preferences)
        await model.refresh()
        model.search("EARTHSEA")
        try RenderingFixture.expect(LibraryScreen(model), matches: "library-filtered")
        model.search("dune")
        try RenderingFixture.expect(LibraryScreen(model), matches: "library-filtered-none")
    }

    // MARK: Notes

    @Test func notesEmpty() async throws {
        let model = NotesViewModel(service: FakeNoteService())
        await model.load()
        try RenderingFixture.expect(NotesScreen(model), matches: "notes-empty")
    }

    @Test func notesLoading() async throws {
        let service = FakeNoteService()
        let model = NotesViewModel(service: service)
        let gate = SuspensionGate<[Note]>()
        await service.enqueueLoad(.gate(gate))
        let load = Task { await model.load() }
        await gate.arrival()

        try RenderingFixture.expect(NotesScreen(model), matches: "notes-loading")
        await gate.open(with: [])
        await load.value
    }

    @Test func notesFailed() async throws {
        let service = FakeNoteService()
        await service.enqueueLoad(.failure(FakeError("HTTP 401: the server refused the credentials")))
        let model = NotesViewModel(service: service)
        await model.load()
        try RenderingFixture.expect(NotesScreen(model), matches: "notes-failed")
    }

    @Test func notesFull() async throws {
        let model = NotesViewModel(service: FakeNoteService(notes: try SampleShelf.notes()))
        await model.load()
        try RenderingFixture.expect(NotesScreen(model), matches: "notes-full")
    }

    @Test func notesWithDuplicatesKeepThePreviousNotes() async throws {
        let service = FakeNoteService(notes: try SampleShelf.notes())
        let model = NotesViewModel(service: service)
        await model.load()
        let notes = try SampleShelf.notes()
        await service.enqueueLoad(.value(notes + [notes[0]]))
        await model.load()
        try RenderingFixture.expect(NotesScreen(model), matches: "notes-duplicates")
    }

    // MARK: Tasks

    @Test func tasksEmpty() async throws {
        let model = TaskListViewModel(service: FakeTaskService())
        await model.load()
        try RenderingFixture.expect(TaskListScreen(model), matches: "tasks-empty")
    }

    @Test func tasksLoading() async throws {
        let service = FakeTaskService()
        let model = TaskListViewModel(service: service)
        let gate = SuspensionGate<[ReadingTask]>()
        await service.enqueueLoad(.gate(gate))
        let load = Task { await model.load() }
        await gate.arrival()

        try RenderingFixture.expect(TaskListScreen(model), matches: "tasks-loading")
        await gate.open(with: [])
        await load.value
    }

    @Test func tasksFailed() async throws {
        let service = FakeTaskService()
        await service.enqueueLoad(.failure(FakeError("database is locked")))
        let model = TaskListViewModel(service: service)
        await model.load()
        try RenderingFixture.expect(TaskListScreen(model), matches: "tasks-failed")
    }

    @Test func tasksFull() async throws {
        let model = TaskListViewModel(service: FakeTaskService(tasks: try SampleShelf.tasks()))
        await model.load()
        try RenderingFixture.expect(TaskListScreen(model), matches: "tasks-full")
    }

    // MARK: Favorites

    @Test func favoritesEmpty() async throws {
        let library = LibraryViewModel(service: FakeBookService(books: try SampleShelf.books()), preferences: FakePreferencesStore())
        await library.refresh()
        let favorites = FavoritesViewModel(preferences: FakePreferencesStore())
        try RenderingFixture.expect(FavoritesScreen(favorites: favorites, library: library), matches: "favorites-empty")
    }

    @Test func favoritesLoading() async throws {
        let service = FakeBookService()
        let library = LibraryViewModel(service: service, preferences: FakePreferencesStore())
        let gate = SuspensionGate<[Book]>()
        await service.enqueueLoad(.gate(gate))
        let load = Task { await library.refresh() }
        await gate.arrival()
        let favorites = FavoritesViewModel(preferences: FakePreferencesStore())
        favorites.toggle("book-001")

        try RenderingFixture.expect(FavoritesScreen(favorites: favorites, library: library), matches: "favorites-loading")
        await gate.open(with: [])
        await load.value
    }

    @Test func favoritesFailed() async throws {
        let service = FakeBookService()
        await service.enqueueLoad(.failure(FakeError("HTTP 503: service unavailable, retry after 3 s")))
        let library = LibraryViewModel(service: service, preferences: FakePreferencesStore())
        await library.refresh()
        let favorites = FavoritesViewModel(preferences: FakePreferencesStore())
        favorites.toggle("book-001")
        try RenderingFixture.expect(FavoritesScreen(favorites: favorites, library: library), matches: "favorites-failed")
    }

    @Test func favoritesFull() async throws {
        let library = LibraryViewModel(service: FakeBookService(books: try SampleShelf.books()), preferences: FakePreferencesStore())
        await library.refresh()
        let favorites = FavoritesViewModel(preferences: FakePreferencesStore())
        favorites.toggle("book-005")
        favorites.toggle("book-gone")
        favorites.toggle("book-001")
        try RenderingFixture.expect(FavoritesScreen(favorites: favorites, library: library), matches: "favorites-full")
    }

    // MARK: Products

    @Test func productsEmpty() async throws {
        let model = ProductViewModel(service: FakeCatalogService())
        await model.load()
        try RenderingFixture.expect(ProductsScreen(model), matches: "products-empty")
    }

    @Test func productsLoading() async throws {
        let service = FakeCatalogService()
        let model = ProductViewModel(service: service)
        let gate = SuspensionGate<[Product]>()
        await service.enqueueLoad(.gate(gate))
        let load = Task { await model.load() }
        await gate.arrival()

        try RenderingFixture.expect(ProductsScreen(model), matches: "products-loading")
        await gate.open(with: [])
        await load.value
    }

    @Test func productsFailed() async throws {
        let service = FakeCatalogService()
        await service.enqueueLoad(.failure(FakeError("HTTP 403: not allowed to read bucket 'shop'")))
        let model = ProductViewModel(service: service)
        await model.load()
        try RenderingFixture.expect(ProductsScreen(model), matches: "products-failed")
    }

    @Test func productsFull() async throws {
        let model = ProductViewModel(service: FakeCatalogService(products: try SampleShelf.products()))
        await model.load()
        try RenderingFixture.expect(ProductsScreen(model), matches: "products-full")
    }

    // MARK: Cart

    @Test func cartEmpty() async throws {
        let model = CartViewModel(cart: FakeCartService(), catalog: FakeCatalogService(products: try SampleShelf.products()))
        await model.load()
        try RenderingFixture.expect(CartScreen(model), matches: "cart-empty")
    }

    @Test func cartLoading() async throws {
        let cart = FakeCartService()
        let model = CartViewModel(cart: cart, catalog: FakeCatalogService(products: try SampleShelf.products()))
        let gate = SuspensionGate<[CartItem]>()
        await cart.enqueueLoad(.gate(gate))
        let load = Task { await model.load() }
        await gate.arrival()

        try RenderingFixture.expect(CartScreen(model), matches: "cart-loading")
        await gate.open(with: [])
        await load.value
    }

    @Test func cartFailed() async throws {
        let catalog = FakeCatalogService()
        await catalog.enqueueLoad(.failure(FakeError("could not resolve host 'shelf.invalid'")))
        let model = CartViewModel(cart: FakeCartService(items: try SampleShelf.cart()), catalog: catalog)
        await model.load()
        try RenderingFixture.expect(CartScreen(model), matches: "cart-failed")
    }

    @Test func cartFull() async throws {
        let model = CartViewModel(
            cart: FakeCartService(items: try SampleShelf.cart()),
            catalog: FakeCatalogService(products: try SampleShelf.products())
        )
        await model.load()
        try RenderingFixture.expect(CartScreen(model), matches: "cart-full")
    }
}
