import ArgumentParsing
import Domain
import Presentation
import Screens

// MARK: - shelf favorites

struct FavoritesCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "favorites", abstract: "List favorite books.",
        discussion: """
        --sort takes a field (title, author, finished, id); a leading '-' or --reverse sorts
        descending. The store finds the favorite books by id, sorts them and stops at --limit;
        favorites the library does not have come last.
        """,
        examples: [
            Example("The favorite books", "shelf favorites"),
            Example("The first five favorites by author", "shelf favorites --sort author --limit 5"),
        ])

    @OptionGroup
    var list = ListOptions<BookSortField>(
        noun: "favorites", sortHelp: "Sort by title (the default), author, finished or id; '-field' for descending.")

    func run(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        await session.repositories.refreshPreferencesIfStale()
        let favorites = FavoritesViewModel(preferences: session.preferences)
        let books = FavoriteBooksViewModel(service: session.repositories.books)
        await books.load(ids: favorites.favoriteIDs, order: list.order(), limit: list.limit)
        let shortIDs = await context.shortIDs([(.books, favorites.sortedIDs)])
        return try context.output.present(
            FavoritesScreen(favorites: favorites, books: books, shortIDs: shortIDs), loaded: books.state)
    }
}

// MARK: - shelf favorite

/// Marks a book as a favorite, or unmarks it. Only a book of the library can become
/// one; a favorite whose book is gone can still be unmarked.
struct FavoriteCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "favorite", abstract: "Mark a book as a favorite, or unmark it (toggles).",
        examples: [Example("Mark a book (again: unmark it)", "shelf favorite b-42")])

    @Argument(help: "The book's id, a unique prefix of it, or its title.", completion: .ids(.books))
    var bookID: String

    func run(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        await session.repositories.refreshPreferencesIfStale()
        let favorites = FavoritesViewModel(preferences: session.preferences)
        if let message = favorites.errorMessage { throw CommandFailure(.ioError, message) }
        // NB: a favorite whose book is gone is named by its full id, and can still be unmarked.
        let id = favorites.isFavorite(bookID) ? bookID : try await BookCommand.existingBook(bookID, context).id
        let isFavorite = favorites.toggle(id)
        if let message = favorites.errorMessage { throw CommandFailure(.ioError, message) }
        try context.output.confirm(ChangeScreen.favorite(id, isFavorite: isFavorite))
        return .success
    }
}
