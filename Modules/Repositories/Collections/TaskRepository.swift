import Domain
import Storage

// MARK: - TaskRepository

/// The reader's reading tasks, offline first (see `BookRepository`).
public actor TaskRepository: TaskService, RefreshControlling {
    private let cache: CachedCollection<ReadingTaskMapping>
    /// Wait for, cancel or forget what this repository refreshes behind its reads.
    public nonisolated let refreshControl: RefreshControl
    private let newID: RecordIDGenerator

    public init(store: ShelfStore, refresher: any CollectionRefreshing, configuration: RepositoryConfiguration = RepositoryConfiguration()) {
        cache = CachedCollection(store: store, refresher: refresher, configuration: configuration)
        refreshControl = RefreshControl(cache)
        newID = configuration.newID
    }

    // MARK: Reading

    /// Every task, in title order, with how current it is and any refresh error.
    public func load(forceRefresh: Bool = false) async throws -> CachedResult<[ReadingTask]> {
        try await cache.all(forceRefresh: forceRefresh)
    }

    /// One page of the tasks whose title contains `search`, found with the store's indexes.
    /// - Parameter openOnly: leave done tasks out.
    public func tasks(
        matching search: String? = nil, openOnly: Bool = false, limit: Int? = nil, offset: Int = 0,
        forceRefresh: Bool = false
    ) async throws -> CachedResult<QueryPage<ReadingTask>> {
        try await cache.page(
            search: search, complete: openOnly ? false : nil, limit: limit, offset: offset, forceRefresh: forceRefresh)
    }

    /// The task with this id in the local store, without asking the server.
    public func task(id: ReadingTask.ID) async throws -> ReadingTask? {
        try await cache.value(id: id)
    }

    // MARK: TaskService

    /// The tasks; a failed refresh is reported only when there is nothing cached.
    public func tasks() async throws -> [ReadingTask] {
        try await cache.all(forceRefresh: false).valueOrRefreshError()
    }

    /// The first `limit` tasks in `order`, sorted and cut by the store's query; a failed
    /// refresh is reported only when there is nothing cached.
    public func tasks(order: ListOrder<TaskSortField>, limit: Int?) async throws -> [ReadingTask] {
        try await cache.page(
            search: nil, complete: nil, limit: limit, offset: 0, order: RecordOrder(order), countsMatches: false,
            forceRefresh: false
        ).valueOrRefreshError().items
    }

    /// - Throws: `DomainError.emptyTitle` (nothing is written).
    public func addTask(title: String) async throws -> ReadingTask {
        let task = try ReadingTask(id: newID.next(), title: title)
        try await cache.save(task, as: .create)
        return task
    }

    /// - Throws: `RepositoryError.notFound` when the store has no such task.
    public func updateTask(_ task: ReadingTask) async throws {
        try await cache.save(task, as: .update)
    }

    /// - Throws: `DomainError.invalidIdentifier`, `RepositoryError.notFound`.
    public func deleteTask(id: ReadingTask.ID) async throws {
        try await cache.delete(id: RecordID.validate(id), mustExist: true)
    }

}
