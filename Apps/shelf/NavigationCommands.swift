import ArgumentParsing
import Presentation
import Screens

// MARK: - Navigation

// `shelf open URL`, `shelf back`, `shelf where`: the router's path of places, saved in
// the account's store between runs.

struct OpenCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "open", abstract: "Open a deep link (shelf://book/<id>, shelf://author/<name>, shelf://note/<id>).",
        examples: [
            Example("Go to a book", "shelf open shelf://book/b-42"),
            Example("Go to an author's books", "shelf open 'shelf://author/Ursula K. Le Guin'"),
        ])

    @Argument(help: "The link.")
    var url: String

    func run(_ context: CommandContext) async throws -> ExitCode {
        let router = Router(preferences: try context.session().preferences)
        guard router.open(url: url) else {
            throw CommandFailure(.dataError, router.errorMessage ?? "the link was refused")
        }
        return try confirmMove(router, context)
    }
}

struct BackCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "back", abstract: "Go back one place in the saved path.", examples: [Example("Back to the previous place", "shelf back")])

    func run(_ context: CommandContext) async throws -> ExitCode {
        let router = Router(preferences: try context.session().preferences)
        router.pop()
        return try confirmMove(router, context)
    }
}

struct WhereCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "where", abstract: "Show the saved path of places.", examples: [Example("Where the path stands", "shelf where")])

    func run(_ context: CommandContext) async throws -> ExitCode {
        let router = Router(preferences: try context.session().preferences)
        try context.output.show(NavigationScreen(router))
        return router.errorMessage == nil ? .success : .ioError
    }
}

/// The path after a move; a move that could not be saved is shown, then reported (74).
@MainActor
private func confirmMove(_ router: Router, _ context: CommandContext) throws -> ExitCode {
    try context.output.confirm(NavigationScreen(router))
    return router.errorMessage == nil ? .success : .ioError
}
