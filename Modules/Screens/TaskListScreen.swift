import Domain
import Presentation

// MARK: - TaskListScreen

/// The reading tasks as `shelf tasks` shows them, with how many are done.
public struct TaskListScreen: RenderableScreen, Hashable {
    public let state: ScreenStatus
    public let tasks: [TaskView]
    public let completedCount: Int
    public let error: String?
    private let hasValue: Bool
    /// The id prefixes the table shows (JSON keeps full ids).
    private let shortIDs: ShortIDs

    @MainActor
    public init(_ model: TaskListViewModel, shortIDs: ShortIDs = .full) {
        self.shortIDs = shortIDs
        state = ScreenStatus(model.state)
        tasks = model.tasks.map(TaskView.init)
        completedCount = model.completedCount
        error = model.errorMessage ?? model.state.failureMessage
        hasValue = model.state.hasValue
    }

    // MARK: Text

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        text.list(
            status: state, hasValue: hasValue, noun: "tasks",
            table: tasks.isEmpty ? nil : table, empty: "No reading tasks yet.",
            summary: "\(completedCount) of \(Wording.count(tasks.count, "task")) done", error: error
        )
        return text.text
    }

    private var table: TextTable {
        var table = TextTable([.init("DONE"), .init("ID"), .init("TITLE")])
        for task in tasks {
            table.append([.init(task.isDone ? "[x]" : "[ ]", task.isDone ? .positive : nil),
                          .init(shortIDs.shown(task.id, in: .tasks)), .init(task.title)])
        }
        return table
    }

    // MARK: JSON

    private enum CodingKeys: String, CodingKey { case state, tasks, completedCount, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(tasks, forKey: .tasks)
        try container.encode(completedCount, forKey: .completedCount)
        try container.encode(error, forKey: .error)
    }
}
