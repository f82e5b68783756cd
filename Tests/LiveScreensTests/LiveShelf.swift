import Domain
import Foundation
import LiveScreens
import Presentation
import Synchronization
import Terminal
import TestSupport

// MARK: - LiveShelf

/// One account's view models over fakes, as `UICommand` wires them over the store.
@MainActor
struct LiveShelf {
    let books: FakeBookService
    let places: MutablePlaces
    let preferences: FakePreferencesStore.Storage
    let models: LiveModels

    init(favorites: Set<Book.ID> = ["book-003"], syncStatus: FakeSyncStatusProvider? = nil, pending: FakeDecisions? = nil,
        readingLog: FakeReadingLogService? = nil, today: ReadingDay? = nil, conflicts: FakeDecisions? = nil,
        notes: FakeNoteService? = nil, tasks: FakeTaskService? = nil, failed: FakeDecisions? = nil,
        catalog: FakeCatalogService? = nil, cart: FakeCartService? = nil,
        editText: (@MainActor (String) async -> EditedBody)? = nil, showFinished: Bool? = nil
    ) throws {
        books = FakeBookService(books: try SampleShelf.books())
        places = MutablePlaces(FakePlaceService(books: try SampleShelf.books(), notes: try SampleShelf.notes(), favorites: favorites))
        preferences = FakePreferencesStore.Storage()
        let store = FakePreferencesStore(storage: preferences)
        try store.setFavorites(favorites)
        var models = LiveModels(
            router: Router(preferences: store, places: places), library: BookWindowViewModel(service: books),
            favorites: FavoritesViewModel(preferences: store), book: BookViewModel(service: books, removal: FakeBookRemoval()))
        models.syncStatus = syncStatus.map { SyncStatusViewModel(provider: $0) }
        if let showFinished {
            try store.setReadingSettings(ReadingSettings(showFinished: showFinished))
            models.settings = ReadingSettingsViewModel(preferences: store)
        }
        models.pending = pending.map { decisions in
            PendingChanges(
                PendingChangesViewModel(service: decisions),
                rows: { ids in ids.map { PendingChanges.Row(target: .record(.books, $0), line: "books/\($0)  update") } },
                done: { "Undid #\($0)." })
        }
        models.failed = failed.map { decisions in
            FailedChanges(FailedChangesViewModel(service: decisions)) { id in
                FailedChanges.Row(id: id, text: "books/book-00\(id)  update  400  Invalid title")
            }
        }
        models.readingProgress = readingLog.map { log in
            ReadingProgressViewModel(service: log, goal: .default, today: { today ?? ReadingDay(Date()) })
        }
        models.conflicts = conflicts.map { decisions in
            Conflicts(
                ConflictsViewModel(service: decisions),
                row: { id in Conflicts.Row(collection: .books, id: id, text: "title, author") },
                fields: { _ in
                    [
                        Conflicts.Field(name: "title", base: "Dune", local: "Dune (1965)", server: "Dune: a novel", isClash: true),
                        Conflicts.Field(name: "author", base: "Frank Herbert", local: "Frank Herbert", server: "F. Herbert", isClash: false),
                        Conflicts.Field(name: "finished", base: "false", local: "true", server: "false", isClash: true),
                    ]
                },
                decisions: { choices in choices.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.rawValue)" }.joined(separator: ",") })
        }
        models.notes = notes.map { NotesViewModel(service: $0) }
        models.note = notes.map { NoteViewModel(service: $0) }
        models.tasks = tasks.map { TaskListViewModel(service: $0) }
        models.task = tasks.map { TaskViewModel(service: $0) }
        models.favoriteBooks = FavoriteBooksViewModel(service: books)
        models.products = catalog.map { ProductViewModel(service: $0) }
        models.cart = cart.flatMap { cart in catalog.map { CartViewModel(cart: cart, catalog: $0) } }
        models.editText = editText
        self.models = models
    }

    func interface(columns: Int, rows: Int = 12) async -> LiveInterface {
        let interface = LiveInterface(models: models, size: TerminalSize(rows: rows, columns: columns))
        await interface.start()
        return interface
    }
}

/// A place service whose records can be taken away, as another process deletes them.
final class MutablePlaces: PlaceService {
    private let current: Mutex<FakePlaceService>

    init(_ places: FakePlaceService) {
        current = Mutex(places)
    }

    func removeBook(_ id: Book.ID) {
        current.withLock { $0.books.removeAll { $0.id == id } }
    }

    func place(at route: Route) async throws -> Place {
        try await current.withLock { $0 }.place(at: route)
    }

    func titles(of routes: [Route]) async throws -> [Route: String] {
        try await current.withLock { $0 }.titles(of: routes)
    }
}

extension LiveInterface {
    /// Hands keys in one after another, each awaited, as the loop does.
    func press(_ keys: Key...) async {
        for key in keys { _ = await handle(.key(key)) }
        await settle()
    }

    func type(_ text: String) async {
        for character in text { _ = await handle(.key(.character(character))) }
        await settle()
    }
}
