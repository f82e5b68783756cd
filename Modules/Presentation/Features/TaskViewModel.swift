import Domain
import Observation

// MARK: - TaskViewModel

/// One reading task, as a detail screen shows and changes it: add, rename, done or not,
/// remove. Every front's task writes go through these intents (`shelf task
/// add|edit|finish|unfinish|rm`, `shelf ui`), so the rules and the failure state are
/// written once.
@MainActor
@Observable
public final class TaskViewModel {
    // MARK: State

    /// The task as last shown or written.
    public var state: LoadingState<ReadingTask> { content.state }
    public var task: ReadingTask? { state.value }
    /// The last failure of an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    /// The error behind `errorMessage`, for a front that tells failures apart by kind.
    public var failure: (any Error)? { content.failure }

    // MARK: Dependencies

    private let service: any TaskService
    private let content = ContentController<ReadingTask>()

    public init(service: any TaskService) {
        self.service = service
    }

    /// Shows `task`, as the front read it.
    public func show(_ task: ReadingTask) {
        content.show(task)
    }

    /// Cancels the intent in flight; nothing it would have changed is published.
    public func cancel() {
        content.cancel()
    }

    // MARK: Intents

    /// Adds a task; the title is trimmed and must not be empty (Domain's rule).
    /// - Returns: the new task, or nil when it was refused (see `failure`).
    public func add(title: String) async -> ReadingTask? {
        let service = self.service
        return await content.write("add the task") { try await service.addTask(title: title) }
    }

    /// Renames the shown task; the title is trimmed and must not be empty.
    /// - Returns: the task as saved, or nil when a rule refused it or the write failed.
    public func rename(to title: String) async -> ReadingTask? {
        let service = self.service
        return await content.change("rename the task", "task", { try $0.rename(to: title) }, save: { try await service.updateTask($0) })
    }

    /// Marks the shown task done, or not done.
    /// - Returns: the task as saved, or nil when the write failed.
    public func setDone(_ done: Bool) async -> ReadingTask? {
        let service = self.service
        return await content.change("update the task", "task", { $0.isDone = done }, save: { try await service.updateTask($0) })
    }

    /// Removes a task.
    /// - Returns: whether it was removed.
    public func remove(id: ReadingTask.ID) async -> Bool {
        let service = self.service
        return await content.attempt("remove the task", { try await service.deleteTask(id: id) })
    }
}
