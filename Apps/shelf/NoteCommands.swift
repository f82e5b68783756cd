import ArgumentParsing
import Domain
import Presentation
import Repositories
import Screens

// MARK: - shelf notes

struct NotesCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "notes", abstract: "List notes.",
        discussion: """
        --sort takes a field (title, book, id); a leading '-' or --reverse sorts descending.
        The store filters, sorts and stops at --limit without counting the rest
        ('totalCount' is then null).
        """,
        examples: [
            Example("Notes about one book", "shelf notes --book b-42"),
            Example("Notes that mention anarchy", "shelf notes --search anarchy"),
            Example("The ten notes that come first by book", "shelf notes --sort book --limit 10"),
        ])

    @Option(value: "text", help: "Only notes whose title or body contains the text.")
    var search: String?
    @Option(value: "id", help: "Only notes about this book (its id, a unique prefix of it, or its title).")
    var book: String?
    @Option(value: "n", help: "List at most N notes.", expecting: ListLimit.expectation, transform: ListLimit.parse)
    var limit: Int?
    @Option(value: "field", help: "Sort by title (the default), book or id; '-field' for descending.")
    var sort: ListOrder<NoteSortField>?
    @Flag(help: "Sort descending.")
    var reverse = false

    func run(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = NotesViewModel(service: session.repositories.notes)
        model.search(search ?? "")
        if let book { model.filter(book: try await context.resolveID(book, in: .books)) }
        await model.load(order: .asked(sort, reverse: reverse), limit: limit)
        let bookIDs = model.visibleNotes.compactMap(\.bookID)
        let shortIDs = await context.shortIDs([(.notes, model.visibleNotes.map(\.id)), (.books, bookIDs)])
        let screen = NotesScreen(model, shortIDs: shortIDs, bookTitles: await context.bookTitles(bookIDs))
        return try context.output.present(screen, loaded: model.state)
    }
}

// MARK: - shelf note

/// `shelf note show|add|edit|rm`.
struct NoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "note", abstract: "Show, add, edit or remove one note.",
        subcommands: [Show.self, Add.self, Edit.self, Remove.self])

    /// The note `reference` names (its id or a unique prefix of it), or "no note with id …" (exit 1).
    @MainActor static func existingNote(_ reference: String, _ context: CommandContext) async throws -> Note {
        let id = try await context.resolveID(reference, in: .notes)
        guard let note = try await context.session().repositories.notes.note(id: id) else {
            throw RepositoryError.notFound(.notes, id: id)
        }
        return note
    }
}

extension NoteCommand {
    struct Show: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "show", abstract: "Show a note.", examples: [Example("One note", "shelf note show n-7")])

        @Argument(help: "The note's id, or a unique prefix of it.")
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            try context.output.show(NoteDetailScreen(try await existingNote(id, context)))
            return .success
        }
    }

    /// Adds a note; `--book` must name a book of the library, so a note never points at
    /// a book that is not there.
    struct Add: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "add", abstract: "Add a note.",
            examples: [Example("A note about a book", "shelf note add --title 'Shevek' --body 'Walls on both sides.' --book b-42")])

        @Option(value: "title", help: "The title.")
        var title: String
        @Option(value: "text", help: "The text of the note.")
        var body: String?
        @Option(value: "id", help: "The book the note is about (its id, a unique prefix of it, or its title).")
        var book: String?

        func run(_ context: CommandContext) async throws -> ExitCode {
            let session = try context.session()
            var bookID: Book.ID?
            if let book { bookID = try await BookCommand.existingBook(book, context).id }
            let note = try await session.repositories.notes.addNote(title: title, body: body ?? "", bookID: bookID)
            try context.output.confirm(ChangeScreen.note(.added, note))
            return .success
        }
    }

    struct Edit: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "edit", abstract: "Change a note's title or body.",
            examples: [Example("Rewrite a note's text", "shelf note edit n-7 --body 'Walls, and the gaps in them.'")])

        @Argument(help: "The note's id, or a unique prefix of it.")
        var id: String
        @Option(value: "title", help: "The new title.")
        var title: String?
        @Option(value: "text", help: "The new text.")
        var body: String?

        func validate() throws(ParseError) {
            guard title != nil || body != nil else { throw .invalid("Nothing to change: give --title, --body or both") }
        }

        func run(_ context: CommandContext) async throws -> ExitCode {
            let session = try context.session()
            var note = try await existingNote(id, context)
            if let title { try note.rename(to: title) }
            if let body { note.body = body }
            try await session.repositories.notes.updateNote(note)
            try context.output.confirm(ChangeScreen.note(.updated, note))
            return .success
        }
    }

    struct Remove: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "rm", abstract: "Remove a note.", examples: [Example("Remove a note", "shelf note rm n-7")])

        @Argument(help: "The note's id, or a unique prefix of it.")
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            let session = try context.session()
            let noteID = try await context.resolveID(id, in: .notes)
            try await session.repositories.notes.deleteNote(id: noteID)
            try context.output.confirm(ChangeScreen.removed(.notes, id: noteID))
            return .success
        }
    }
}
