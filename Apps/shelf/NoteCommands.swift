import ArgumentParsing
import Domain
import Presentation
import Repositories

// MARK: - NoteCommands

/// `shelf notes` and `shelf note show|add|edit|rm`.
@MainActor
enum NoteCommands {
    static func list(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = NotesViewModel(service: session.repositories.notes)
        model.search(context.invocation.option("search") ?? "")
        model.filter(book: context.invocation.option("book"))
        await model.load()
        return try context.output.present(NotesScreen(model), loaded: model.state)
    }

    static func show(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        try context.output.show(NoteDetailScreen(try await existingNote(try context.argument("id"), in: session)))
        return .success
    }

    /// Adds a note; `--book` must name a book of the library, so a note never points at
    /// a book that is not there.
    static func add(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let bookID = context.invocation.option("book")
        if let bookID { _ = try await LibraryCommands.existingBook(bookID, in: session) }
        let note = try await session.repositories.notes.addNote(
            title: try context.requiredOption("title"), body: context.invocation.option("body") ?? "", bookID: bookID)
        try context.output.confirm(ChangeScreen.note(.added, note))
        return .success
    }

    static func edit(_ context: CommandContext) async throws -> ExitCode {
        let title = context.invocation.option("title"), body = context.invocation.option("body")
        guard title != nil || body != nil else { throw ParseError.invalid("Nothing to change: give --title, --body or both") }
        let session = try context.session()
        var note = try await existingNote(try context.argument("id"), in: session)
        if let title { try note.rename(to: title) }
        if let body { note.body = body }
        try await session.repositories.notes.updateNote(note)
        try context.output.confirm(ChangeScreen.note(.updated, note))
        return .success
    }

    static func remove(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let id = try context.argument("id")
        try await session.repositories.notes.deleteNote(id: id)
        try context.output.confirm(ChangeScreen.removed(.notes, id: id))
        return .success
    }

    private static func existingNote(_ id: String, in session: AccountSession) async throws -> Note {
        guard let note = try await session.repositories.notes.note(id: id) else {
            throw RepositoryError.notFound(.notes, id: id)
        }
        return note
    }
}
