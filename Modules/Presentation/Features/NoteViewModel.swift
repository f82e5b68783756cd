import Domain
import Observation

// MARK: - NoteViewModel

/// One note, as a detail screen shows and changes it: add, edit, remove. Every front's
/// note writes go through these intents (`shelf note add|edit|rm` today, the terminal
/// interface later), so the rules and the failure state are written once.
@MainActor
@Observable
public final class NoteViewModel {
    // MARK: State

    /// The note as last shown or written.
    public var state: LoadingState<Note> { content.state }
    public var note: Note? { state.value }
    /// The last failure of an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    /// The error behind `errorMessage`, for a front that tells failures apart by kind.
    public var failure: (any Error)? { content.failure }

    // MARK: Dependencies

    private let service: any NoteService
    private let content = ContentController<Note>()

    public init(service: any NoteService) {
        self.service = service
    }

    /// Shows `note`, as the front read it.
    public func show(_ note: Note) {
        content.show(note)
    }

    /// Cancels the intent in flight; nothing it would have changed is published.
    public func cancel() {
        content.cancel()
    }

    // MARK: Intents

    /// Adds a note; the title is trimmed and must not be empty, and the body must say
    /// something (Domain's `TitleRule` and `NoteBodyRule`).
    /// - Returns: the new note, or nil when it was refused (see `failure`).
    public func add(title: String, body: String, bookID: Book.ID?) async -> Note? {
        let service = self.service
        return await content.write("add the note") {
            try await service.addNote(title: title, body: try NoteBodyRule.validate(body), bookID: bookID)
        }
    }

    /// Changes the shown note's title, body or both; a new body must say something
    /// (`NoteBodyRule`).
    /// - Returns: the note as saved, or nil when a rule refused it or the write failed.
    public func edit(title: String?, body: String?) async -> Note? {
        let service = self.service
        return await content.change("edit the note", "note", { note in
            if let title { try note.rename(to: title) }
            if let body { note.body = try NoteBodyRule.validate(body) }
        }, save: { try await service.updateNote($0) })
    }

    /// Removes a note.
    /// - Returns: whether it was removed.
    public func remove(id: Note.ID) async -> Bool {
        let service = self.service
        return await content.attempt("remove the note", { try await service.deleteNote(id: id) })
    }
}
