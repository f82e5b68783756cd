import Domain
import Storage

// MARK: - AccountRepositories

/// Every repository of one account, built over that account's store and sync engine.
///
/// A repository is bound to one store for its whole life and keeps its in-memory copy
/// inside itself; nothing is shared between containers. Switching accounts means
/// building a new container for the other account's store (and dropping this one,
/// after `cancelRefreshes()`), so data of one account can never be served for another.
public struct AccountRepositories: BookRemoving, Sendable {
    /// The account's local store, which every repository here reads and writes.
    public let store: ShelfStore
    public let books: BookRepository
    public let notes: NoteRepository
    public let tasks: TaskRepository
    public let cart: CartRepository
    public let catalog: CatalogRepository
    public let readingLog: ReadingLogRepository
    /// The reader's favorites and settings (synced, in the `preferences` collection) and
    /// this device's router path, kept in the same store.
    public let preferences: SyncedPreferencesStore
    /// Records by full id, id prefix or title, and the short ids lists show.
    public let lookup: RecordLookupRepository
    /// What the router's links lead to.
    public let places: PlaceRepository
    private let refresher: any CollectionRefreshing
    private let configuration: RepositoryConfiguration

    /// - Parameters:
    ///   - store: the account's local store.
    ///   - refresher: the account's sync engine, which pulls into that same store.
    public init(store: ShelfStore, refresher: any CollectionRefreshing, configuration: RepositoryConfiguration = RepositoryConfiguration()) {
        self.store = store
        self.refresher = refresher
        self.configuration = configuration
        books = BookRepository(store: store, refresher: refresher, configuration: configuration)
        notes = NoteRepository(store: store, refresher: refresher, configuration: configuration)
        tasks = TaskRepository(store: store, refresher: refresher, configuration: configuration)
        cart = CartRepository(store: store, refresher: refresher, configuration: configuration)
        catalog = CatalogRepository(store: store, refresher: refresher, configuration: configuration)
        readingLog = ReadingLogRepository(store: store, refresher: refresher, configuration: configuration)
        preferences = SyncedPreferencesStore(store: store)
        lookup = RecordLookupRepository(store: store)
        places = PlaceRepository(store: store, preferences: preferences)
    }

    // MARK: Preferences

    /// Brings favorites and settings up to date before a command reads them, under the
    /// reader-data freshness policy: nothing when they synced recently, one pull of the
    /// `preferences` collection otherwise. A failed pull leaves the local values (the
    /// refresher reports it); preferences are read synchronously, so there is no
    /// refresh behind the answer.
    public func refreshPreferencesIfStale() async {
        let synced = try? store.read { reader in try reader.syncState(.preferences).lastSuccess }
        let decision = configuration.policy(for: .preferences)
            .decision(fetchedAt: synced ?? nil, now: configuration.clock.now(), force: false)
        guard decision != .serveCached else { return }
        _ = try? await refresher.refresh(.preferences)
    }

    // MARK: Changes across collections

    /// Removes a book and, as `mode` says, its notes, sessions and favorite — one change
    /// set (see `BookRemoval`) — and makes the repositories read the store again.
    public func removeBook(id: Book.ID, mode: BookRemovalMode) async throws -> BookRemovalResult {
        let result = try BookRemoval.remove(id, mode: mode, from: store)
        await books.invalidate()
        await notes.invalidate()
        await readingLog.invalidate()
        return result
    }

    /// What refers to a book (notes, sessions, its favorite).
    public func references(toBook id: Book.ID) throws -> BookReferences {
        try store.read { reader in try reader.references(toBook: id) }
    }

    /// The status screen's summary, straight from the store.
    public var syncStatus: any SyncStatusProviding { store }

    /// Whether nothing of `collection` is local yet: never refreshed, and no records
    /// (not even ones made offline) — what a failed first refresh leaves a reader with.
    /// An unreadable store counts as having something.
    public func hasNothingLocal(_ collection: CollectionName) -> Bool {
        let synced = (try? store.read { reader in try reader.syncState(collection).lastSuccess != nil }) ?? true
        return !synced && ((try? store.count(RecordQuery(collection))) ?? 1) == 0
    }

    // MARK: Background work

    /// Waits until every refresh in flight has finished — the CLI calls this after
    /// printing, so a stale-while-revalidate refresh lands before the process exits.
    public func waitForRefreshes() async {
        // NB: the refreshes already run side by side; waiting for them in turn takes as
        // long as the slowest.
        await books.waitForRefresh()
        await notes.waitForRefresh()
        await tasks.waitForRefresh()
        await cart.waitForRefresh()
        await catalog.waitForRefresh()
        await readingLog.waitForRefresh()
    }

    /// Cancels every refresh in flight (when leaving the account).
    public func cancelRefreshes() async {
        await books.cancelRefresh()
        await notes.cancelRefresh()
        await tasks.cancelRefresh()
        await cart.cancelRefresh()
        await catalog.cancelRefresh()
        await readingLog.cancelRefresh()
    }

    /// Makes every repository read the store again, e.g. after a full sync run that
    /// did not go through the repositories.
    public func invalidateAll() async {
        await books.invalidate()
        await notes.invalidate()
        await tasks.invalidate()
        await cart.invalidate()
        await catalog.invalidate()
        await readingLog.invalidate()
    }
}
