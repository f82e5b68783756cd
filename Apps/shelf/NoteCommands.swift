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
    @Option(value: "id", help: "Only notes about this book.")
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
        model.filter(book: book)
        await model.load(order: .asked(sort, reverse: reverse), limit: limit)
        return try context.output.present(NotesScreen(model), loaded: model.state)
    }
}

// MARK: - shelf note

/// `shelf note show|add|edit|rm`.
struct NoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "note", abstract: "Show, add, edit or remove one note.",
        subcommands: [Show.self, Add.self, Edit.self, Remove.self])

    @MainActor static func existingNote(_ id: String, in session: AccountSession) async throws -> Note {
        guard let note = try await session.repositories.notes.note(id: id) else {
            throw RepositoryError.notFound(.notes, id: id)
        }
        return note
    }
}

extension NoteCommand {
    struct Show: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "show", abstract: "Show a note.", examples: [Example("One note", "shelf note show n-7")])

        @Argument(help: "The note's id.")
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            let session = try context.session()
            try context.output.show(NoteDetailScreen(try await existingNote(id, in: session)))
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
        @Option(value: "id", help: "The book the note is about.")
        var book: String?

        func run(_ context: CommandContext) async throws -> ExitCode {
            let session = try context.session()
            if let book { _ = try await BookCommand.existingBook(book, in: session) }
            let note = try await session.repositories.notes.addNote(title: title, body: body ?? "", bookID: book)
            try context.output.confirm(ChangeScreen.note(.added, note))
            return .success
        }
    }

    struct Edit: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "edit", abstract: "Change a note's title or body.",
            examples: [Example("Rewrite a note's text", "shelf note edit n-7 --body 'Walls, and the gaps in them.'")])

        @Argument(help: "The note's id.")
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
            var note = try await existingNote(id, in: session)
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

        @Argument(help: "The note's id.")
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            let session = try context.session()
            try await session.repositories.notes.deleteNote(id: id)
            try context.output.confirm(ChangeScreen.removed(.notes, id: id))
            return .success
        }
    }
}
