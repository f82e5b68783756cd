import Domain

// MARK: - AccountModels

/// The feature models of one account, built together from that account's
/// dependencies and discarded together when the reader switches accounts.
///
/// Nothing here is shared between accounts: a new account gets new instances, so a
/// screen bound to the old ones can tell (by identity) that it must rebind.
@MainActor
public final class AccountModels {
    public let account: AccountID
    public let library: LibraryModel
    public let notes: NotesViewModel
    public let tasks: TaskListViewModel
    public let favorites: FavoritesViewModel
    public let products: ProductViewModel
    public let cart: CartViewModel
    public let settings: ReadingSettingsModel
    public let syncStatus: SyncStatusModel
    public let router: Router

    public init(account: AccountID, dependencies: AccountDependencies) {
        let library = LibraryModel(service: dependencies.books, preferences: dependencies.preferences)
        self.account = account
        self.library = library
        notes = NotesViewModel(service: dependencies.notes)
        tasks = TaskListViewModel(service: dependencies.tasks)
        favorites = FavoritesViewModel(preferences: dependencies.preferences)
        products = ProductViewModel(service: dependencies.catalog)
        cart = CartViewModel(cart: dependencies.cart, catalog: dependencies.catalog)
        // The library follows the settings' one owner; `weak` so the settings model
        // does not keep a discarded library alive.
        settings = ReadingSettingsModel(preferences: dependencies.preferences) { [weak library] settings in
            library?.settingsDidChange(settings)
        }
        syncStatus = SyncStatusModel(provider: dependencies.syncStatus)
        router = Router(preferences: dependencies.preferences)
    }

    /// Cancels every load and intent in flight in every model: none of them publishes.
    public func cancelAll() {
        library.cancel()
        notes.cancel()
        tasks.cancel()
        products.cancel()
        cart.cancel()
        syncStatus.cancel()
    }
}
