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
            Example("Notes that mention anarchy", "shelf notes anarchy"),
            Example("The ten notes that come first by book", "shelf notes --sort book --limit 10"),
        ])

    @Argument(name: "query", help: "Only notes whose title or body contains the text.")
    var query: String?
    @Option(value: "text", help: "The same as QUERY.")
    var search: String?
    @Option(value: "id", help: "Only notes about this book (its id, a unique prefix of it, or its title).", completion: .ids(.books))
    var book: String?
    @OptionGroup
    var list = ListOptions<NoteSortField>(
        noun: "notes", sortHelp: "Sort by title (the default), book or id; '-field' for descending.")

    func validate() throws(ParseError) {
        if query != nil, search != nil { throw .invalid("Give the text once: as QUERY or with --search") }
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = NotesViewModel(service: session.repositories.notes)
        model.search(query ?? search ?? "")
        if let book { model.filter(book: try await context.resolveID(book, in: .books)) }
        await model.load(order: list.order(), limit: list.limit)
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

    /// The note `reference` names (its id, a unique prefix of it, or its title), or "no note with id …" (exit 1).
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

        @Argument(help: "The note's id, a unique prefix of it, or its title.", completion: .ids(.notes))
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            try context.output.show(NoteDetailScreen(try await existingNote(id, context)))
            return .success
        }
    }

    /// Adds a note; `--book` must name a book of the library, so a note never points at
    /// a book that is not there. The body may come from standard input or the editor.
    struct Add: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "add", abstract: "Add a note.",
            discussion: """
            The body is '--body TEXT', '--body -' (read from standard input, up to 256 KiB) or
            '--edit' (written in $VISUAL, else $EDITOR, else vi). A note must say something:
            an empty body, however it is given, or none at all, is refused (65) and nothing
            is written.
            """,
            examples: [
                Example("A note about a book", "shelf note add --title 'Shevek' --body 'Walls on both sides.' --book b-42"),
                Example("The body from a file, through standard input", "shelf note add --title 'Chapter 2' --body - < chapter-2.txt"),
                Example("The body written in an editor", "EDITOR=nano shelf note add --title 'Chapter 3' --edit"),
            ])

        @Option(value: "title", help: "The title.")
        var title: String
        @Option(value: "text", help: "The text of the note; '-' reads it from standard input.")
        var body: String?
        @Flag(help: "Write the text in $VISUAL or $EDITOR (default vi).")
        var edit = false
        @Option(value: "id", help: "The book the note is about (its id, a unique prefix of it, or its title).", completion: .ids(.books))
        var book: String?

        func validate() throws(ParseError) {
            if edit && body != nil { throw .invalid("Use either '--body' or '--edit', not both") }
        }

        func run(_ context: CommandContext) async throws -> ExitCode {
            guard body != nil || edit else {
                throw CommandFailure(.dataError, """
                    a note's body must not be empty: give --body TEXT, --body - (standard input) or --edit; \
                    nothing was written
                    """)
            }
            let model = NoteViewModel(service: try context.session().repositories.notes)
            // NB: the title and the book are checked before the editor opens: nothing
            // typed is refused afterwards for a reason known before.
            _ = try TitleRule.validate(title)
            var bookID: Book.ID?
            if let book { bookID = try await BookCommand.existingBook(book, context).id }
            let input = try NoteBodyInput.read(option: body, edit: edit, current: nil, context: context)
            let note = try await NoteBodyInput.writing(input) {
                try outcome(await model.add(title: title, body: input?.text ?? "", bookID: bookID), failure: model.failure)
            }
            try context.output.confirm(ChangeScreen.note(.added, note))
            return .success
        }
    }

    struct Edit: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "edit", abstract: "Change a note's title or body.",
            discussion: """
            '--body -' reads the new body from standard input; '--edit' opens the body in
            $VISUAL, else $EDITOR, else vi. An empty body, however it is given, or one left
            unchanged in the editor, is refused (65), and the note stays as it was.
            """,
            examples: [
                Example("Rewrite a note's text", "shelf note edit n-7 --body 'Walls, and the gaps in them.'"),
                Example("Rework a note's text in an editor", "shelf note edit n-7 --edit"),
            ])

        @Argument(help: "The note's id, a unique prefix of it, or its title.", completion: .ids(.notes))
        var id: String
        @Option(value: "title", help: "The new title.")
        var title: String?
        @Option(value: "text", help: "The new text; '-' reads it from standard input.")
        var body: String?
        @Flag(help: "Edit the text in $VISUAL or $EDITOR (default vi).")
        var edit = false

        func validate() throws(ParseError) {
            if edit && body != nil { throw .invalid("Use either '--body' or '--edit', not both") }
            guard title != nil || body != nil || edit else { throw .invalid("Nothing to change: give --title, --body, --edit or several") }
        }

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = NoteViewModel(service: try context.session().repositories.notes)
            let note = try await existingNote(id, context)
            // NB: a title a rule refuses is refused before the editor opens.
            if let title { _ = try TitleRule.validate(title) }
            let input = try NoteBodyInput.read(option: body, edit: edit, current: note.body, context: context)
            model.show(note)
            let saved = try await NoteBodyInput.writing(input) {
                try outcome(await model.edit(title: title, body: input?.text), failure: model.failure)
            }
            try context.output.confirm(ChangeScreen.note(.updated, saved))
            return .success
        }
    }

    struct Remove: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "rm", abstract: "Remove a note.", examples: [Example("Remove a note", "shelf note rm n-7")])

        @Argument(help: "The note's id, a unique prefix of it, or its title.", completion: .ids(.notes))
        var id: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = NoteViewModel(service: try context.session().repositories.notes)
            let noteID = try await context.resolveID(id, in: .notes)
            try outcome(await model.remove(id: noteID), failure: model.failure)
            try context.output.confirm(ChangeScreen.removed(.notes, id: noteID))
            return .success
        }
    }
}
