import ArgumentParsing
import Domain
import Presentation
import Screens
import Sync

// MARK: - Unsynced changes

// `shelf pending` and `shelf undo`: the changes the server has not seen yet, and taking
// one back before it is sent. Each undo is one transaction in the local store.

struct PendingCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "pending", abstract: "List the changes not synced yet.",
        discussion: """
        One line per changed record (several edits before a sync are one change), the
        least recently changed first: the last line is what 'shelf undo' takes back.
        STATE 'sent, no answer yet' means a sync sent it and did not hear back; the next
        sync settles it.
        """,
        examples: [
            Example("What the next sync sends", "shelf pending"),
            Example("The same, for a script", "shelf --json pending"),
        ])

    func run(_ context: CommandContext) async throws -> ExitCode {
        let model = PendingChangesViewModel(service: try context.session().decisions)
        await model.load()
        let changes = try loaded(model.state, failure: model.failure)
        let shortIDs = await context.shortIDs(PendingChangesScreen.idsShown(by: changes))
        try context.output.show(PendingChangesScreen(changes, shortIDs: shortIDs))
        return .success
    }
}

struct UndoCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "undo", abstract: "Take back the last change not synced yet, or a record's.",
        discussion: """
        The record goes back to the version last synced: an added record is removed, an
        edited one gets its synced values back (all its edits since the last sync), a
        removed one comes back. A change a sync already sent may have reached the server
        and cannot be taken back here: sync, then change the record again.
        """,
        examples: [
            Example("Take back the last change", "shelf undo"),
            Example("Take back the changes to one book", "shelf undo books/b-42"),
        ])

    @Argument(name: "id", help: "The record whose change to take back: its id, or COLLECTION/ID (default: the last change).",
              completion: .pendingChanges)
    var record: RecordReference?

    func run(_ context: CommandContext) async throws -> ExitCode {
        let model = PendingChangesViewModel(service: try context.session().decisions)
        let undone = try outcome(await model.undo(record?.collection, id: record?.id), failure: model.failure)
        try context.output.confirm(UndoScreen(undone))
        return .success
    }
}
