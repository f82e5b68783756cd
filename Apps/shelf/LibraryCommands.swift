import ArgumentParsing
import Domain
import Presentation
import Repositories

// MARK: - LibraryCommands

/// `shelf books` and `shelf book show|add|edit|finish|unfinish|rm`.
@MainActor
enum LibraryCommands {
    /// Lists the books through the store's indexes: a search over 100,000 books decodes
    /// only the matches. Finished books are left out when the reader's settings hide
    /// them or `--unfinished` asks.
    static func list(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let settings = ReadingSettingsModel(preferences: session.preferences)
        let model = BookSearchModel(service: session.repositories.books)
        await model.search(
            context.invocation.option("search") ?? "",
            unfinishedOnly: context.invocation.flag("unfinished") || !settings.showFinished)
        return try context.output.present(LibraryScreen(model), loaded: model.state)
    }

    static func show(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let book = try await existingBook(try context.argument("id"), in: session)
        let favorites = FavoritesViewModel(preferences: session.preferences)
        try context.output.show(BookDetailScreen(book, isFavorite: favorites.isFavorite(book.id)))
        return .success
    }

    static func add(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let book = try await session.repositories.books.addBook(
            title: try context.requiredOption("title"), author: try context.requiredOption("author"))
        try context.output.confirm(ChangeScreen.book(.added, book))
        return .success
    }

    static func edit(_ context: CommandContext) async throws -> ExitCode {
        let title = context.invocation.option("title"), author = context.invocation.option("author")
        guard title != nil || author != nil else { throw ParseError.invalid("Nothing to change: give --title, --author or both") }
        let session = try context.session()
        var book = try await existingBook(try context.argument("id"), in: session)
        if let title { try book.rename(to: title) }
        if let author { try book.setAuthor(author) }
        try await session.repositories.books.updateBook(book)
        try context.output.confirm(ChangeScreen.book(.updated, book))
        return .success
    }

    static func setFinished(_ context: CommandContext, _ finished: Bool) async throws -> ExitCode {
        let session = try context.session()
        var book = try await existingBook(try context.argument("id"), in: session)
        book.isFinished = finished
        try await session.repositories.books.updateBook(book)
        try context.output.confirm(ChangeScreen.bookFinished(book))
        return .success
    }

    /// Removes a book; what refers to it decides whether it may go (see `BookRemoval`).
    static func remove(_ context: CommandContext) async throws -> ExitCode {
        let cascade = context.invocation.flag("cascade"), keepNotes = context.invocation.flag("keep-notes")
        guard !(cascade && keepNotes) else { throw ParseError.invalid("Give --cascade or --keep-notes, not both") }
        let session = try context.session()
        let id = try context.argument("id")
        let mode: BookRemovalMode = cascade ? .cascade : keepNotes ? .keepNotes : .refuseIfReferenced
        let result: BookRemovalResult
        do {
            result = try await session.repositories.removeBook(id: id, mode: mode)
        } catch let refused as BookRemovalError {
            throw CommandFailure(.failure, """
                \(refused.description); use --cascade to remove them too, or --keep-notes to keep the notes \
                and sessions without a book
                """)
        }
        try context.output.confirm(ChangeScreen.bookRemoved(result))
        return .success
    }

    /// The book from the local store, or "no book with id …" (exit 1).
    static func existingBook(_ id: String, in session: AccountSession) async throws -> Book {
        guard let book = try await session.repositories.books.book(id: id) else {
            throw RepositoryError.notFound(.books, id: id)
        }
        return book
    }
}
