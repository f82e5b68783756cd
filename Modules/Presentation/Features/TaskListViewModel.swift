import Domain
import Observation

// MARK: - TaskListViewModel

/// The reader's reading tasks ("finish chapter 3"): add, toggle, delete, and how many
/// are done.
@MainActor
@Observable
public final class TaskListViewModel {
    // MARK: State

    public var state: LoadingState<[ReadingTask]> { content.state }
    /// The last failure of a load or an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }

    /// All loaded tasks, in the service's order.
    public var tasks: [ReadingTask] { state.value ?? [] }

    /// How many tasks are done.
    public var completedCount: Int { tasks.count { $0.isDone } }

    public var isLoading: Bool { state.isLoading }

    public func task(id: ReadingTask.ID) -> ReadingTask? {
        tasks.first { $0.id == id }
    }

    // MARK: Dependencies

    private let service: any TaskService
    private let content = ContentController<[ReadingTask]>()

    public init(service: any TaskService) {
        self.service = service
    }

    // MARK: Loading

    /// Loads the tasks; a call while a load is in flight joins it. A failed load keeps
    /// the tasks on screen.
    /// - Parameters:
    ///   - order: the list's order; the service sorts before it cuts at `limit`.
    ///   - limit: at most this many tasks; nil for all.
    public func load(order: ListOrder<TaskSortField> = .standard, limit: Int? = nil) async {
        let service = self.service
        await content.load(.joinInFlight, action: "load tasks") {
            try await service.tasks(order: order, limit: limit).requireUniqueIDs()
        }
    }

    /// Cancels in-flight work; nothing it would have loaded or changed is published.
    public func cancel() {
        content.cancel()
    }

    // MARK: Intents

    /// Adds a task. The title is trimmed; an empty title sets `errorMessage` and adds
    /// nothing (the service is not asked).
    /// - Returns: the new task, or nil when it was refused.
    @discardableResult
    public func add(title rawTitle: String) async -> ReadingTask? {
        let action = "add the task"
        let title: String
        do {
            title = try TitleRule.validate(rawTitle)
        } catch {
            content.refuse(action, error)
            return nil
        }
        let service = self.service
        guard let task = await content.attempt(action, { try await service.addTask(title: title) })
        else { return nil }
        content.update { $0 + [task] }
        return task
    }

    /// Marks a loaded task done, or not done when it was.
    @discardableResult
    public func toggle(id: ReadingTask.ID) async -> Bool {
        let action = "update the task"
        guard var task = task(id: id) else {
            content.refuse(action, FeatureError.notFound(kind: "task", id: id))
            return false
        }
        task.isDone.toggle()
        let changed = task
        let service = self.service
        guard await content.attempt(action, { try await service.updateTask(changed) }) else { return false }
        content.update { tasks in tasks.map { $0.id == changed.id ? changed : $0 } }
        return true
    }

    /// Deletes a loaded task.
    @discardableResult
    public func delete(id: ReadingTask.ID) async -> Bool {
        let action = "delete the task"
        guard task(id: id) != nil else {
            content.refuse(action, FeatureError.notFound(kind: "task", id: id))
            return false
        }
        let service = self.service
        guard await content.attempt(action, { try await service.deleteTask(id: id) }) else { return false }
        content.update { $0.filter { $0.id != id } }
        return true
    }
}
