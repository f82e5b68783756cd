import ArgumentParsing
import Domain
import Presentation
import Screens

// MARK: - Navigation

// `shelf open URL`, `shelf back`, `shelf where`: the router's path of places, saved in
// the account's store between runs, and what the place on top leads to. A link to a
// record the store does not have is refused (66, EX_NOINPUT: what it names is not
// there), a malformed one is invalid data (65), and neither changes the path.

struct OpenCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "open", abstract: "Open a deep link (shelf://book/<id>, shelf://author/<name>, shelf://note/<id>).",
        examples: [
            Example("Go to a book: its details, notes and favorite state", "shelf open shelf://book/b-42"),
            Example("The same, by a unique prefix of the id", "shelf open shelf://book/3f2b1c9a"),
            Example("Go to an author's books", "shelf open 'shelf://author/Ursula K. Le Guin'"),
        ])

    @Argument(help: "The link.")
    var url: String

    func run(_ context: CommandContext) async throws -> ExitCode {
        let router = try navigationRouter(context)
        guard await router.open(url: url) else {
            switch router.refusal {
            // NB: a link names a full id; one too short to be a prefix is simply not there.
            case .lookup(.notFound(let collection, let reference)), .lookup(.tooShort(let collection, let reference)):
                throw CommandFailure(.noInput, "\(url) leads nowhere: no \(collection.recordNoun) with id '\(reference)'")
            case .lookup(.noBooks(let author)):
                throw CommandFailure(.noInput, "\(url) leads nowhere: no book by '\(author)' is on the shelf")
            case .lookup(let error):
                throw error
            case .unreadable(let reason):
                throw CommandFailure(.ioError, reason)
            case .malformed, nil:
                throw CommandFailure(.dataError, router.errorMessage ?? "the link was refused")
            }
        }
        return try await confirmMove(router, context)
    }
}

struct BackCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "back", abstract: "Go back one place in the saved path, and show the place now on top.",
        examples: [Example("Back to the previous place", "shelf back")])

    func run(_ context: CommandContext) async throws -> ExitCode {
        let router = try navigationRouter(context)
        router.pop()
        await router.showDestination()
        return try await confirmMove(router, context)
    }
}

struct WhereCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "where", abstract: "Show the saved path of places, and what the place on top leads to.",
        examples: [Example("Where the path stands", "shelf where")])

    func run(_ context: CommandContext) async throws -> ExitCode {
        let router = try navigationRouter(context)
        await router.showDestination()
        try context.output.show(await navigationScreen(router, context))
        return router.errorMessage == nil ? .success : .ioError
    }
}

// MARK: - Wiring

/// The router over the account's saved path, following links to the store's records.
@MainActor
private func navigationRouter(_ context: CommandContext) throws -> Router {
    let session = try context.session()
    return Router(preferences: session.preferences, places: session.repositories.places)
}

/// The path with its titles, and the destination, with the short ids the tables show.
@MainActor
private func navigationScreen(_ router: Router, _ context: CommandContext) async -> NavigationScreen {
    let shortIDs = await context.shortIDs(NavigationScreen.idsShown(by: router))
    return NavigationScreen(router, titles: await router.pathTitles(), shortIDs: shortIDs)
}

/// The path after a move and the place on top; a move that could not be saved is
/// shown, then reported (74).
@MainActor
private func confirmMove(_ router: Router, _ context: CommandContext) async throws -> ExitCode {
    if context.output.isJSON || !context.output.quiet {
        try context.output.confirm(await navigationScreen(router, context))
    }
    return router.errorMessage == nil ? .success : .ioError
}
