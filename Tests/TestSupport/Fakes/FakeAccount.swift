import Domain
import Presentation

// MARK: - FakeAccount

/// One account's worth of fakes, and the `AccountDependencies` built from them, so a
/// test can script any service of the account a session is on.
public struct FakeAccount: Sendable {
    public let books: FakeBookService
    public let notes: FakeNoteService
    public let tasks: FakeTaskService
    public let catalog: FakeCatalogService
    public let cart: FakeCartService
    public let syncStatus: FakeSyncStatusProvider
    public let preferences: FakePreferencesStore

    public init(
        books: [Book] = [], notes: [Note] = [], tasks: [ReadingTask] = [],
        products: [Product] = [], cart: [CartItem] = [], syncStatus: SyncStatus = SyncStatus(),
        preferences: FakePreferencesStore = FakePreferencesStore()
    ) {
        self.books = FakeBookService(books: books)
        self.notes = FakeNoteService(notes: notes)
        self.tasks = FakeTaskService(tasks: tasks)
        self.catalog = FakeCatalogService(products: products)
        self.cart = FakeCartService(items: cart)
        self.syncStatus = FakeSyncStatusProvider(status: syncStatus)
        self.preferences = preferences
    }

    public var dependencies: AccountDependencies {
        AccountDependencies(
            books: books, notes: notes, tasks: tasks, catalog: catalog, cart: cart,
            syncStatus: syncStatus, preferences: preferences
        )
    }
}
