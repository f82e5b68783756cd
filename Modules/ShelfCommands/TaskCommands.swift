import ArgumentParsing
import Domain
import Presentation
import Repositories
import Screens

// MARK: - shelf tasks

struct TasksCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "tasks", abstract: "List reading tasks.",
        discussion: """
        --sort takes a field (title, done, id); a leading '-' or --reverse sorts descending.
        The store sorts and stops at --limit; the count of done tasks is of those listed.
        """,
        examples: [
            Example("The tasks and how many are done", "shelf tasks"),
            Example("The five open tasks that come first by title", "shelf tasks --sort done --limit 5"),
        ])

    @OptionGroup
    var list = ListOptions<TaskSortField>(
        noun: "tasks", sortHelp: "Sort by title (the default), done or id; '-field' for descending.", completesFields: true)

    func run(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = TaskListViewModel(service: session.repositories.tasks)
        await model.load(order: list.order(), limit: list.limit)
        let shortIDs = await context.shortIDs([(.tasks, model.tasks.map(\.id))])
        return try context.output.present(TaskListScreen(model, shortIDs: shortIDs), loaded: model.state)
    }
}

// MARK: - shelf task

/// `shelf task add|done|undo|rm`.
struct TaskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "task", abstract: "Add, complete, reopen or remove a reading task.",
        subcommands: [Add.self, Done.self, Undo.self, Remove.self])

    @MainActor static func setDone(_ reference: String, _ done: Bool, _ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = TaskViewModel(service: session.repositories.tasks)
        let id = try await context.resolveID(reference, in: .tasks)
        guard let task = try await session.repositories.tasks.task(id: id) else {
            throw RepositoryError.notFound(.tasks, id: id)
        }
        model.show(task)
        let saved = try outcome(await model.setDone(done), failure: model.failure)
        try context.output.confirm(ChangeScreen.taskDone(saved))
        return .success
    }
}

extension TaskCommand {
    struct Add: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "add", abstract: "Add a task.", examples: [Example("Add a task", "shelf task add 'Finish the Earthsea cycle'")])

        @Argument(help: "What to do.")
        var title: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = TaskViewModel(service: try context.session().repositories.tasks)
            let task = try outcome(await model.add(title: title), failure: model.failure)
            try context.output.confirm(ChangeScreen.task(.added, task))
            return .success
        }
    }

    struct Done: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "done", abstract: "Mark a task done.", examples: [Example("Tick a task off", "shelf task done t-3")])

        @Argument(help: "The task's id, or a unique prefix of it.", completion: .ids(.tasks))
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            try await setDone(id, true, context)
        }
    }

    struct Undo: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "undo", abstract: "Mark a task not done.", examples: [Example("Reopen a task", "shelf task undo t-3")])

        @Argument(help: "The task's id, or a unique prefix of it.", completion: .ids(.tasks))
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            try await setDone(id, false, context)
        }
    }

    struct Remove: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "rm", abstract: "Remove a task.", examples: [Example("Remove a task", "shelf task rm t-3")])

        @Argument(help: "The task's id, or a unique prefix of it.", completion: .ids(.tasks))
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = TaskViewModel(service: try context.session().repositories.tasks)
            let taskID = try await context.resolveID(id, in: .tasks)
            try outcome(await model.remove(id: taskID), failure: model.failure)
            try context.output.confirm(ChangeScreen.removed(.tasks, id: taskID))
            return .success
        }
    }
}
