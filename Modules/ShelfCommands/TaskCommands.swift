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

/// `shelf task add|edit|finish|unfinish|rm`: the verbs every record takes
/// (`docs/cli.md`, "One grammar"); `done` and `undo` are the older names of
/// `finish` and `unfinish`, kept for a release.
struct TaskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "task", abstract: "Add, edit, finish, unfinish or remove a reading task.",
        subcommands: [Add.self, Edit.self, Finish.self, Unfinish.self, Remove.self])

    /// The task `reference` names (its id, a unique prefix of it, or its title).
    @MainActor static func existingTask(_ reference: String, _ context: CommandContext) async throws -> ReadingTask {
        let id = try await context.resolveID(reference, in: .tasks)
        guard let task = try await context.session().repositories.tasks.task(id: id) else {
            throw RepositoryError.notFound(.tasks, id: id)
        }
        return task
    }

    @MainActor static func setDone(_ reference: String, _ done: Bool, _ context: CommandContext) async throws -> ExitCode {
        let model = TaskViewModel(service: try context.session().repositories.tasks)
        model.show(try await existingTask(reference, context))
        let saved = try outcome(await model.setDone(done), failure: model.failure)
        try context.output.confirm(ChangeScreen.taskDone(saved))
        return .success
    }

    static let idHelp = "The task's id, a unique prefix of it, or its title."
}

extension TaskCommand {
    struct Add: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "add", abstract: "Add a task.",
            discussion: "The title is given with --title, as for a book or a note; 'shelf task add TITLE' is the older form, kept for a release.",
            examples: [Example("Add a task", "shelf task add --title 'Finish the Earthsea cycle'")])

        @Argument(name: "title", help: "What to do, the older way (as --title).")
        var positionalTitle: String?
        @Option(value: "title", help: "What to do.")
        var title: String?

        func validate() throws(ParseError) {
            switch (title, positionalTitle) {
            case (nil, nil): throw .missingOption("title")
            case (_?, _?): throw .invalid("Give the title once: --title TITLE")
            default: break
            }
        }

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = TaskViewModel(service: try context.session().repositories.tasks)
            let task = try outcome(await model.add(title: title ?? positionalTitle ?? ""), failure: model.failure)
            try context.output.confirm(ChangeScreen.task(.added, task))
            return .success
        }
    }

    struct Edit: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "edit", abstract: "Change a task's title.",
            examples: [Example("Say it better", "shelf task edit t-3 --title 'Finish Tehanu'")])

        @Argument(help: TaskCommand.idHelp, completion: .ids(.tasks))
        var id: String
        @Option(value: "title", help: "The new title.")
        var title: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = TaskViewModel(service: try context.session().repositories.tasks)
            model.show(try await existingTask(id, context))
            let saved = try outcome(await model.rename(to: title), failure: model.failure)
            try context.output.confirm(ChangeScreen.task(.updated, saved))
            return .success
        }
    }

    struct Finish: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "finish", abstract: "Mark a task done.", examples: [Example("Tick a task off", "shelf task finish t-3")],
            aliases: ["done"])

        @Argument(help: TaskCommand.idHelp, completion: .ids(.tasks))
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            try await setDone(id, true, context)
        }
    }

    struct Unfinish: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "unfinish", abstract: "Mark a task not done.", examples: [Example("Reopen a task", "shelf task unfinish t-3")],
            aliases: ["undo"])

        @Argument(help: TaskCommand.idHelp, completion: .ids(.tasks))
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            try await setDone(id, false, context)
        }
    }

    struct Remove: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "rm", abstract: "Remove a task.", examples: [Example("Remove a task", "shelf task rm t-3")])

        @Argument(help: TaskCommand.idHelp, completion: .ids(.tasks))
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
