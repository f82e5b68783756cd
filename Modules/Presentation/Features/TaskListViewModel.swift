import Domain
import Observation

// MARK: - TaskListViewModel

/// The reader's reading tasks ("finish chapter 3") and how many are done. A task is
/// added, ticked off or removed through `TaskViewModel`, whatever lists it.
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
}
