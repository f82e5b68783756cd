import Domain
import Storage

// MARK: - TaskRepository

/// The reader's reading tasks (see `CollectionRepository`).
public typealias TaskRepository = CollectionRepository<ReadingTaskMapping>

extension CollectionRepository where Mapping == ReadingTaskMapping {
    // MARK: Reading

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
        try await value(id: id)
    }
}

// MARK: - TaskService

extension CollectionRepository: TaskService where Mapping == ReadingTaskMapping {
    /// The tasks; a failed refresh is reported only when there is nothing cached.
    public func tasks() async throws -> [ReadingTask] {
        try await values(forceRefresh: false)
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
