import ArgumentParsing
import Presentation

// MARK: - NavigationCommands

/// `shelf open URL`, `shelf back`, `shelf where`: the router's path of places, saved
/// in the account's store between runs.
@MainActor
enum NavigationCommands {
    static func open(_ context: CommandContext) async throws -> ExitCode {
        let router = Router(preferences: try context.session().preferences)
        guard router.open(url: try context.argument("url")) else {
            throw CommandFailure(.dataError, router.errorMessage ?? "the link was refused")
        }
        return try confirm(router, context)
    }

    static func back(_ context: CommandContext) async throws -> ExitCode {
        let router = Router(preferences: try context.session().preferences)
        router.pop()
        return try confirm(router, context)
    }

    static func show(_ context: CommandContext) async throws -> ExitCode {
        let router = Router(preferences: try context.session().preferences)
        try context.output.show(NavigationScreen(router))
        return router.errorMessage == nil ? .success : .ioError
    }

    /// The path after a move; a move that could not be saved is shown, then reported (74).
    private static func confirm(_ router: Router, _ context: CommandContext) throws -> ExitCode {
        try context.output.confirm(NavigationScreen(router))
        return router.errorMessage == nil ? .success : .ioError
    }
}
