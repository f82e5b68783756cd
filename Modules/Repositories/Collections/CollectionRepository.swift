import Domain
import RecordDTOs
import Storage

// MARK: - CollectionRepository

/// One collection of the reader's data, offline first: served from the account's local
/// store under the collection's freshness policy, refreshed through the sync engine,
/// edited locally at once (each edit queued in the outbox for the next push).
///
/// One actor for every collection: what differs — the Domain port a collection answers
/// (`BookService`, `CartService`, …) and how it is searched — is in the conditional
/// extensions named after each repository (`BookRepository`, `NoteRepository`, …).
public actor CollectionRepository<Mapping: RecordMapping>: RefreshControlling {
    let cache: CachedCollection<Mapping>
    /// Wait for, cancel or forget what this repository refreshes behind its reads.
    public nonisolated let refreshControl: RefreshControl
    let newID: RecordIDGenerator

    /// - Parameters:
    ///   - store: the account's local store; this repository serves nothing else.
    ///   - refresher: the account's sync engine (or a fake).
    public init(store: ShelfStore, refresher: any CollectionRefreshing, configuration: RepositoryConfiguration = RepositoryConfiguration()) {
        cache = CachedCollection(store: store, refresher: refresher, configuration: configuration)
        refreshControl = RefreshControl(cache)
        newID = configuration.newID
    }

    // MARK: Reading

    /// Every value, in the collection's order, with how current it is and any refresh error.
    public func load(forceRefresh: Bool = false) async throws -> CachedResult<[Mapping.DTO.Value]> {
        try await cache.all(forceRefresh: forceRefresh)
    }

    /// The values, as a Domain port serves them: a failed refresh is reported only when
    /// there is nothing cached.
    func values(forceRefresh: Bool) async throws -> [Mapping.DTO.Value] {
        try await cache.all(forceRefresh: forceRefresh).valueOrRefreshError()
    }

    /// The value with this id in the local store, without asking the server.
    func value(id: String) async throws -> Mapping.DTO.Value? {
        try await cache.value(id: id)
    }
}
