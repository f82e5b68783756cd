import ArgumentParsing
import Domain
import Presentation
import Repositories

// MARK: - TaskCommands

/// `shelf tasks` and `shelf task add|done|undo|rm`.
@MainActor
enum TaskCommands {
    static func list(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = TaskListViewModel(service: session.repositories.tasks)
        await model.load()
        return try context.output.present(TaskListScreen(model), loaded: model.state)
    }

    static func add(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let task = try await session.repositories.tasks.addTask(title: try context.argument("title"))
        try context.output.confirm(ChangeScreen.task(.added, task))
        return .success
    }

    static func setDone(_ context: CommandContext, _ done: Bool) async throws -> ExitCode {
        let session = try context.session()
        let id = try context.argument("id")
        guard var task = try await session.repositories.tasks.task(id: id) else {
            throw RepositoryError.notFound(.tasks, id: id)
        }
        task.isDone = done
        try await session.repositories.tasks.updateTask(task)
        try context.output.confirm(ChangeScreen.taskDone(task))
        return .success
    }

    static func remove(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let id = try context.argument("id")
        try await session.repositories.tasks.deleteTask(id: id)
        try context.output.confirm(ChangeScreen.removed(.tasks, id: id))
        return .success
    }
}
