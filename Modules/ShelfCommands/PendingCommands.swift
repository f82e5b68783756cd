import ArgumentParsing
import Domain
import Presentation
import Screens
import Sync

// MARK: - The history of operations

// `shelf pending`, `shelf history`, `shelf undo` and `shelf redo`: every local write is
// an operation of the history (`OperationHistory`); undo takes back the last one, redo
// puts it back. An undo that removes a record or loses a later change asks first.

struct PendingCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "pending", abstract: "List the operations not synced yet.",
        discussion: """
        One line per operation of the history whose changes the server has not
        acknowledged yet, oldest first: the last line is what 'shelf undo' takes back.
        STATE 'sent, no answer yet' means a sync sent it and did not hear back; the next
        sync settles it. Changes made outside the history (before it began, or by
        'shelf resolve') are listed after, one per record.
        """,
        examples: [
            Example("What the next sync sends", "shelf pending"),
            Example("The same, for a script", "shelf --json pending"),
        ])

    func run(_ context: CommandContext) async throws -> ExitCode {
        let model = PendingChangesViewModel(service: try context.session().decisions)
        await model.load()
        let pending = try loaded(model.state, failure: model.failure)
        let shortIDs = await context.shortIDs(PendingChangesScreen.idsShown(by: pending))
        try context.output.show(PendingChangesScreen(pending, shortIDs: shortIDs))
        return .success
    }
}

struct HistoryCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "history", abstract: "List the operations 'undo' and 'redo' walk.",
        discussion: """
        Every local write is an operation: a command that changes something, a key in
        'shelf ui', an import. The history lists them oldest first with what each did and
        where it stands: synced, waiting for a sync, or undone. It keeps the last 200
        operations (16 MiB of record versions); one that changed more than 2,000 records
        is listed but cannot be undone.
        """,
        examples: [
            Example("The last operations", "shelf history --limit 10"),
            Example("For a script", "shelf --json history"),
        ])

    @Option(value: "n", help: "Only the last N operations.")
    var limit: Int?

    func validate() throws(ParseError) {
        if let limit, limit < 1 { throw .invalid("--limit must be 1 or more") }
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let model = PendingChangesViewModel(service: try context.session().decisions)
        await model.loadHistory()
        var entries = try loaded(model.history, failure: model.failure)
        if let limit { entries = Array(entries.suffix(limit)) }
        let shortIDs = await context.shortIDs(HistoryScreen.idsShown(by: entries))
        try context.output.show(HistoryScreen(entries, shortIDs: shortIDs))
        return .success
    }
}

struct UndoCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "undo", abstract: "Take back the last operation (one step; 'shelf redo' puts it back).",
        discussion: """
        Each field the operation changed goes back to what it was; fields changed by
        others stay. An undo that removes a record, brings back one removed since, or sets
        back a field changed since (by a later operation or a sync) says so and asks first
        on a terminal; --yes says yes for a script. Without a terminal and without --yes it
        is refused (64) and nothing changes. The undo is a change like any other: the next
        sync sends it (or nothing, when a record is back exactly as the server has it).
        With ID, the last operation that changed that record is taken back, by a new
        operation when it is not the last one; a record changed only outside the history
        gets its synced version back.
        """,
        examples: [
            Example("Take back the last operation", "shelf undo"),
            Example("The same in a script, removals included", "shelf undo --yes"),
            Example("Take back the last change to one book", "shelf undo books/b-42"),
            Example("Take back operation 12 of 'shelf history'", "shelf undo --operation 12"),
        ])

    @Argument(name: "id", help: "The record whose last change to take back: its id, or COLLECTION/ID (default: the last operation).",
              completion: .pendingChanges)
    var record: RecordReference?
    @Option(value: "n", help: "The operation to take back, by its number in 'shelf history'.")
    var operation: Int?
    @Flag(short: "y", help: "Say yes to what needs a yes (a record removed, a later change lost).")
    var yes = false

    func validate() throws(ParseError) {
        if record != nil, operation != nil { throw .invalid("Give a record or --operation, not both") }
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let model = PendingChangesViewModel(service: try context.session().decisions)
        let target: UndoTarget = if let operation { .operation(Int64(operation)) } else if let record { .record(record.collection, record.id) } else { .last }
        let outcome = try outcome(
            await model.undo(target, confirm: UndoConfirmation.asking(context, yes: yes)), failure: model.failure)
        try context.output.confirm(UndoScreen(outcome))
        return .success
    }
}

struct RedoCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "redo", abstract: "Put back the last operation undone.",
        discussion: """
        Redo walks forward through what 'shelf undo' took back, until another operation is
        made (that one ends what can be redone). A redo that would set back a field changed
        since asks first, as undo does.
        """,
        examples: [Example("Put back what the last undo took back", "shelf redo")])

    @Flag(short: "y", help: "Say yes to what needs a yes (a later change lost).")
    var yes = false

    func run(_ context: CommandContext) async throws -> ExitCode {
        let model = PendingChangesViewModel(service: try context.session().decisions)
        let outcome = try outcome(await model.redo(confirm: UndoConfirmation.asking(context, yes: yes)), failure: model.failure)
        try context.output.confirm(UndoScreen(outcome))
        return .success
    }
}

// MARK: - UndoConfirmation

/// How `undo` and `redo` get the reader's yes: `--yes`, else a question on the
/// terminal, else a refusal that says what would have needed it (exit 64).
enum UndoConfirmation {
    @MainActor
    static func asking(_ context: CommandContext, yes: Bool) -> @MainActor (UndoPlan) async throws -> Bool {
        { plan in
            if yes { return true }
            guard context.output.terminal.stdinIsTerminal else { throw UndoError.needsConfirmation(plan) }
            let what = plan.entry.map { "\(OperationText.reference($0)): \(OperationText.summary($0))" } ?? "the unsynced changes"
            // NB: titles come from records (the server's too): escaped before the terminal.
            var text = "This \(plan.direction.rawValue) of \(TerminalEscaping.escaped(what))\n"
            for reason in plan.confirmationReasons { text += "  - \(TerminalEscaping.escaped(reason))\n" }
            context.output.terminal.writeErr(text)
            guard let answer = context.console.readAnswer("\(plan.direction == .undo ? "Undo" : "Redo") it? [y/N] "),
                  ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
            else { throw UndoError.declined }
            return true
        }
    }
}
