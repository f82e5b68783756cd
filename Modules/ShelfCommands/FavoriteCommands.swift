import ArgumentParsing
import Domain
import Presentation
import Screens
import Storage

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

/// Marks a book as a favorite or unmarks it: `favorite add BOOK` and `favorite rm BOOK`
/// say which, so a script can run them twice; `favorite BOOK` toggles. Only a book of
/// the library can become one; a favorite whose book is gone can still be unmarked.
struct FavoriteCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "favorite", abstract: "Mark a book as a favorite (add), unmark it (rm), or toggle it.",
        discussion: """
        'add' and 'rm' leave the book as they say however often they run; 'shelf favorite
        BOOK' toggles, as before.
        """,
        examples: [
            Example("Mark a book, whatever it was", "shelf favorite add b-42"),
            Example("Unmark it", "shelf favorite rm b-42"),
            Example("Toggle it", "shelf favorite b-42"),
        ],
        subcommands: [Add.self, Remove.self])

    @Argument(name: "book", help: "The book to toggle: its id, a unique prefix of it, or its title.", completion: .ids(.books))
    var bookID: String?

    func run(_ context: CommandContext) async throws -> ExitCode {
        guard let bookID else { throw ParseError.missingArgument("book") }
        return try await Self.mark(bookID, context) { favorites, id in favorites.toggle(id) }
    }

    static let bookHelp = "The book: its id, a unique prefix of it, or its title."

    /// Finds the book and marks it as `change` says.
    /// - Parameter change: sets the favorite; returns whether the book is one afterwards.
    @MainActor static func mark(
        _ reference: String, _ context: CommandContext, _ change: (FavoritesViewModel, Book.ID) -> Bool
    ) async throws -> ExitCode {
        let session = try context.session()
        await session.repositories.refreshPreferencesIfStale()
        let favorites = FavoritesViewModel(preferences: session.preferences)
        if let message = favorites.errorMessage { throw CommandFailure(.ioError, message) }
        // NB: a favorite whose book is gone is named by its full id, and can still be unmarked.
        let id = favorites.isFavorite(reference) ? reference : try await BookCommand.existingBook(reference, context).id
        let wasFavorite = favorites.isFavorite(id)
        let isFavorite = change(favorites, id)
        if let failure = favorites.failure {
            throw failure is StorageError ? CommandFailure(.ioError, favorites.errorMessage ?? "\(failure)") : failure
        }
        try context.output.confirm(ChangeScreen.favorite(id, isFavorite: isFavorite, changed: isFavorite != wasFavorite))
        return .success
    }
}

extension FavoriteCommand {
    struct Add: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "add", abstract: "Mark a book as a favorite (nothing changes when it is one).",
            examples: [Example("Mark a book", "shelf favorite add dispossessed")])

        @Argument(name: "book", help: FavoriteCommand.bookHelp, completion: .ids(.books))
        var bookID: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            try await FavoriteCommand.mark(bookID, context) { favorites, id in
                favorites.set(id, favorite: true)
                return favorites.isFavorite(id)
            }
        }
    }

    struct Remove: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "rm", abstract: "Unmark a favorite (nothing changes when it is not one).",
            examples: [Example("Unmark a book", "shelf favorite rm dispossessed")])

        @Argument(name: "book", help: FavoriteCommand.bookHelp, completion: .ids(.books))
        var bookID: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            try await FavoriteCommand.mark(bookID, context) { favorites, id in
                favorites.set(id, favorite: false)
                return favorites.isFavorite(id)
            }
        }
    }
}
