import ArgumentParsing
import Domain
import Presentation
import Repositories
import Screens

// MARK: - shelf books

/// Lists the books through the store's indexes: a search over 100,000 books decodes
/// only the matches. Finished books are left out when the reader's settings hide them
/// or `--unfinished` asks.
struct BooksCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "books", abstract: "List books.",
        discussion: """
        --sort takes a field (title, author, finished, id); a leading '-' or --reverse sorts
        descending. The store sorts and stops at --limit without counting the rest, so the
        first 50 of a million books are as quick to list as 50 ('totalCount' is then null).
        """,
        examples: [
            Example("Books by Le Guin, whatever the case or accents", "shelf books 'le guin'"),
            Example("What is left to read, as JSON", "shelf books --unfinished --json"),
            Example("The first 20 books by author, Z to A", "shelf books --sort -author --limit 20"),
        ])

    @Argument(name: "query", help: "Only books whose title or author contains the text (any case, any accents).")
    var query: String?
    @Option(value: "text", help: "The same as QUERY.")
    var search: String?
    @Flag(help: "Only books not finished yet.")
    var unfinished = false
    @OptionGroup
    var list = ListOptions<BookSortField>(
        noun: "books", sortHelp: "Sort by title (the default), author, finished or id; '-field' for descending.",
        completesFields: true)

    func validate() throws(ParseError) {
        if query != nil, search != nil { throw .invalid("Give the text once: as QUERY or with --search") }
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let settings = ReadingSettingsViewModel(preferences: session.preferences)
        let model = BookSearchViewModel(service: session.repositories.books)
        await model.search(
            query ?? search ?? "", unfinishedOnly: unfinished || !settings.showFinished, limit: list.limit,
            order: list.order(), counting: list.limit == nil)
        let shortIDs = await context.shortIDs([(.books, model.books.map(\.id))])
        return try context.output.present(LibraryScreen(model, shortIDs: shortIDs), loaded: model.state)
    }
}

// MARK: - shelf book

/// `shelf book show|add|edit|finish|unfinish|rm`.
struct BookCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "book", abstract: "Show, add, edit, finish or remove one book.",
        subcommands: [Show.self, Add.self, Edit.self, Finish.self, Unfinish.self, Remove.self])

    /// The book `reference` names (its id, a unique prefix of it, or a unique title;
    /// see `RecordReferences`), from the local store, or "no book with id …" (exit 1).
    @MainActor static func existingBook(_ reference: String, _ context: CommandContext) async throws -> Book {
        let id = try await context.resolveID(reference, in: .books)
        guard let book = try await context.session().repositories.books.book(id: id) else {
            throw RepositoryError.notFound(.books, id: id)
        }
        return book
    }

    @MainActor static func setFinished(_ id: String, _ finished: Bool, _ context: CommandContext) async throws -> ExitCode {
        let model = try viewModel(context)
        model.show(try await existingBook(id, context))
        let book = try outcome(await model.setFinished(finished), failure: model.failure)
        try context.output.confirm(ChangeScreen.bookFinished(book))
        return .success
    }

    /// The view model every book write goes through.
    @MainActor static func viewModel(_ context: CommandContext) throws -> BookViewModel {
        let session = try context.session()
        return BookViewModel(service: session.repositories.books, removal: session.repositories)
    }
}

extension BookCommand {
    struct Show: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "show", abstract: "Show a book.",
            examples: [
                Example("One book, and whether it is a favorite", "shelf book show b-42"),
                Example("The same book by the start of its id, or by its title", "shelf book show dispossessed"),
            ])

        @Argument(help: "The book's id, a unique prefix of it (4 characters or more), or its title.", completion: .ids(.books))
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            let session = try context.session()
            let book = try await existingBook(id, context)
            let favorites = FavoritesViewModel(preferences: session.preferences)
            try context.output.show(BookDetailScreen(book, isFavorite: favorites.isFavorite(book.id)))
            return .success
        }
    }

    struct Add: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "add", abstract: "Add a book.",
            examples: [
            Example("Add a book", "shelf book add --title 'The Left Hand of Darkness' --author 'Ursula K. Le Guin'"),
            Example("A book whose author is not known", "shelf book add --title 'Beowulf'"),
        ])

        @Option(value: "title", help: "The title.")
        var title: String
        @Option(value: "author", help: "The author (none when left out).")
        var author: String?

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = try viewModel(context)
            let book = try outcome(await model.add(title: title, author: author ?? ""), failure: model.failure)
            try context.output.confirm(ChangeScreen.book(.added, book))
            return .success
        }
    }

    struct Edit: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "edit", abstract: "Change a book's title or author.",
            examples: [Example("Correct an author's name", "shelf book edit b-42 --author 'Ursula K. Le Guin'")])

        @Argument(help: "The book's id, a unique prefix of it, or its title.", completion: .ids(.books))
        var id: String
        @Option(value: "title", help: "The new title.")
        var title: String?
        @Option(value: "author", help: "The new author.")
        var author: String?

        func validate() throws(ParseError) {
            guard title != nil || author != nil else { throw .invalid("Nothing to change: give --title, --author or both") }
        }

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = try viewModel(context)
            model.show(try await existingBook(id, context))
            let book = try outcome(await model.edit(title: title, author: author), failure: model.failure)
            try context.output.confirm(ChangeScreen.book(.updated, book))
            return .success
        }
    }

    struct Finish: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "finish", abstract: "Mark a book finished.", examples: [Example("Mark a book read", "shelf book finish b-42")])

        @Argument(help: "The book's id, a unique prefix of it, or its title.", completion: .ids(.books))
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            try await setFinished(id, true, context)
        }
    }

    struct Unfinish: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "unfinish", abstract: "Mark a book not finished.",
            examples: [Example("Put a book back on the pile", "shelf book unfinish b-42")])

        @Argument(help: "The book's id, a unique prefix of it, or its title.", completion: .ids(.books))
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            try await setFinished(id, false, context)
        }
    }

    /// Removes a book; what refers to it decides whether it may go (see `BookRemoval`).
    struct Remove: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "rm", abstract: "Remove a book.",
            discussion: """
            A book that notes, reading sessions or a favorite refer to is not removed unless
            --cascade (remove them too, as one change) or --keep-notes (keep the notes and
            sessions without a book) says what to do with them; the message says how many
            there are. A removed book's favorite always goes with it.
            """,
            examples: [
                Example("Remove a book nothing refers to", "shelf book rm b-42"),
                Example("Remove a book with its notes and reading sessions", "shelf book rm b-42 --cascade"),
            ])

        @Argument(help: "The book's id, a unique prefix of it, or its title.", completion: .ids(.books))
        var id: String
        @Flag(help: "Also remove the book's notes and reading sessions.")
        var cascade = false
        @Flag(help: "Keep the book's notes and reading sessions, detached from it.")
        var keepNotes = false

        func validate() throws(ParseError) {
            guard !(cascade && keepNotes) else { throw .invalid("Give --cascade or --keep-notes, not both") }
        }

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = try viewModel(context)
            let mode: BookRemovalMode = cascade ? .cascade : keepNotes ? .keepNotes : .refuseIfReferenced
            let bookID = try await context.resolveID(id, in: .books)
            let result: BookRemovalResult
            do {
                result = try outcome(await model.remove(id: bookID, mode: mode), failure: model.failure)
            } catch let refused as BookRemovalError {
                throw CommandFailure(.failure, """
                    \(refused.description); use --cascade to remove them too, or --keep-notes to keep the notes \
                    and sessions without a book
                    """)
            }
            try context.output.confirm(ChangeScreen.bookRemoved(result))
            return .success
        }
    }
}
