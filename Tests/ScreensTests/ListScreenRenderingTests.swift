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

    /// The library as `shelf books` fills it: a search through the store's indexes.
    private func searched(_ service: FakeBookService, _ text: String = "", unfinishedOnly: Bool = false) async -> BookSearchViewModel {
        let model = BookSearchViewModel(service: service)
        await model.search(text, unfinishedOnly: unfinishedOnly)
        return model
    }

    @Test func libraryEmpty() async throws {
        try RenderingFixture.expect(LibraryScreen(await searched(FakeBookService())), matches: "library-empty")
    }

    @Test func libraryLoading() async throws {
        let service = FakeBookService()
        let model = BookSearchViewModel(service: service)
        let gate = SuspensionGate<BookSearchPage>()
        await service.enqueueSearch(.gate(gate))
        let load = Task { await model.search("", unfinishedOnly: false) }
        await gate.arrival()

        try RenderingFixture.expect(LibraryScreen(model), matches: "library-loading")
        await gate.open(with: BookSearchPage(books: [], totalMatches: 0, totalBooks: 0, offset: 0))
        await load.value
    }

    @Test func libraryFailed() async throws {
        let service = FakeBookService()
        await service.enqueueSearch(.failure(FakeError("could not connect to 127.0.0.1:8888 (connection refused)")))
        try RenderingFixture.expect(LibraryScreen(await searched(service)), matches: "library-failed")
    }

    @Test func libraryFull() async throws {
        try RenderingFixture.expect(LibraryScreen(await searched(FakeBookService(books: try SampleShelf.books()))), matches: "library-full")
    }

    @Test func libraryRefreshFailedKeepsTheBooks() async throws {
        let service = FakeBookService(books: try SampleShelf.books())
        let model = await searched(service)
        await service.enqueueSearch(.failure(FakeError("the server did not answer in 30 s")))
        await model.search("", unfinishedOnly: false)
        try RenderingFixture.expect(LibraryScreen(model), matches: "library-refresh-failed")
    }

    @Test func libraryFiltered() async throws {
        let service = FakeBookService(books: try SampleShelf.books())
        try RenderingFixture.expect(LibraryScreen(await searched(service, "EARTHSEA", unfinishedOnly: true)), matches: "library-filtered")
        try RenderingFixture.expect(LibraryScreen(await searched(service, "dune", unfinishedOnly: true)), matches: "library-filtered-none")
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

    /// The favorite books as `shelf favorites` finds them: by id, through the store.
    private func favoriteBooks(_ service: FakeBookService, _ favorites: FavoritesViewModel) async -> FavoriteBooksViewModel {
        let books = FavoriteBooksViewModel(service: service)
        await books.load(ids: favorites.favoriteIDs)
        return books
    }

    @Test func favoritesEmpty() async throws {
        let favorites = FavoritesViewModel(preferences: FakePreferencesStore())
        let books = await favoriteBooks(FakeBookService(books: try SampleShelf.books()), favorites)
        try RenderingFixture.expect(FavoritesScreen(favorites: favorites, books: books), matches: "favorites-empty")
    }

    @Test func favoritesLoading() async throws {
        let service = FakeBookService()
        let favorites = FavoritesViewModel(preferences: FakePreferencesStore())
        favorites.toggle("book-001")
        let books = FavoriteBooksViewModel(service: service)
        let gate = SuspensionGate<[Book]>()
        await service.enqueueLoad(.gate(gate))
        let load = Task { await books.load(ids: favorites.favoriteIDs) }
        await gate.arrival()

        try RenderingFixture.expect(FavoritesScreen(favorites: favorites, books: books), matches: "favorites-loading")
        await gate.open(with: [])
        await load.value
    }

    @Test func favoritesFailed() async throws {
        let service = FakeBookService()
        await service.enqueueLoad(.failure(FakeError("HTTP 503: service unavailable, retry after 3 s")))
        let favorites = FavoritesViewModel(preferences: FakePreferencesStore())
        favorites.toggle("book-001")
        let books = await favoriteBooks(service, favorites)
        try RenderingFixture.expect(FavoritesScreen(favorites: favorites, books: books), matches: "favorites-failed")
    }

    @Test func favoritesFull() async throws {
        let favorites = FavoritesViewModel(preferences: FakePreferencesStore())
        favorites.toggle("book-005")
        favorites.toggle("book-gone")
        favorites.toggle("book-001")
        let books = await favoriteBooks(FakeBookService(books: try SampleShelf.books()), favorites)
        try RenderingFixture.expect(FavoritesScreen(favorites: favorites, books: books), matches: "favorites-full")
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
