import Domain
import Storage

// MARK: - ReadingLogRepository

/// The reader's reading sessions, offline first (see `BookRepository`). Sessions are
/// only added, each with a fresh id, so two devices' sessions never touch the same
/// record: the log needs no merging, and a day's total adds up every device's reading.
public actor ReadingLogRepository: ReadingLogService, RefreshControlling {
    private let cache: CachedCollection<ReadingSessionMapping>
    /// Wait for, cancel or forget what this repository refreshes behind its reads.
    public nonisolated let refreshControl: RefreshControl
    private let newID: RecordIDGenerator

    public init(store: ShelfStore, refresher: any CollectionRefreshing, configuration: RepositoryConfiguration = RepositoryConfiguration()) {
        cache = CachedCollection(store: store, refresher: refresher, configuration: configuration)
        refreshControl = RefreshControl(cache)
        newID = configuration.newID
    }

    /// Every session, oldest day first, with how current it is and any refresh error.
    public func load(forceRefresh: Bool = false) async throws -> CachedResult<[ReadingSession]> {
        try await cache.all(forceRefresh: forceRefresh)
    }

    // MARK: ReadingLogService

    /// The sessions; a failed refresh is reported only when there is nothing cached.
    public func sessions(forceRefresh: Bool) async throws -> [ReadingSession] {
        try await cache.all(forceRefresh: forceRefresh).valueOrRefreshError()
    }

    /// - Throws: `DomainError` for minutes outside 1...1440 or a malformed book id
    ///   (nothing is written).
    public func logSession(minutes: Int, day: ReadingDay, bookID: Book.ID?) async throws -> ReadingSession {
        let session = try ReadingSession(id: newID.next(), minutes: minutes, day: day, bookID: bookID)
        try await cache.save(session, as: .create)
        return session
    }
}
