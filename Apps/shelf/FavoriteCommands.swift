import ArgumentParsing
import Domain
import Presentation

// MARK: - FavoriteCommands

/// `shelf favorites` and `shelf favorite BOOK_ID`.
@MainActor
enum FavoriteCommands {
    static func list(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        await session.repositories.refreshPreferencesIfStale()
        let favorites = FavoritesViewModel(preferences: session.preferences)
        let library = LibraryModel(service: session.repositories.books, preferences: session.preferences)
        await library.refresh()
        return try context.output.present(FavoritesScreen(favorites: favorites, library: library), loaded: library.state)
    }

    /// Marks a book as a favorite, or unmarks it. Only a book of the library can become
    /// one; a favorite whose book is gone can still be unmarked.
    static func toggle(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        await session.repositories.refreshPreferencesIfStale()
        let id = try RecordID.validate(try context.argument("book-id"))
        let favorites = FavoritesViewModel(preferences: session.preferences)
        if let message = favorites.errorMessage { throw CommandFailure(.ioError, message) }
        if !favorites.isFavorite(id) { _ = try await LibraryCommands.existingBook(id, in: session) }
        let isFavorite = favorites.toggle(id)
        if let message = favorites.errorMessage { throw CommandFailure(.ioError, message) }
        try context.output.confirm(ChangeScreen.favorite(id, isFavorite: isFavorite))
        return .success
    }
}
