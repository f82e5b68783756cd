import ArgumentParsing
import Domain
import Presentation
import Screens
import Sync

// MARK: - Decisions

// What a sync left to the reader: `shelf conflicts`, `resolve`, `failed`, `retry`,
// `discard`. Each decision is one transaction in the local store and reaches the
// server with the next sync.

/// `shelf conflicts [list]|show`.
struct ConflictsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "conflicts", abstract: "List conflicts waiting for a decision, or show one field by field.",
        examples: [
            Example("The conflicts, and which fields clash", "shelf conflicts"),
            Example("One conflict's base, local and server values", "shelf conflicts show books/b-42"),
        ],
        subcommands: [List.self, Show.self], defaultSubcommand: List.self)
}

extension ConflictsCommand {
    struct List: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "list", abstract: "List the conflicts (the default).",
            examples: [Example("The conflicts ('shelf conflicts' alone does the same)", "shelf conflicts list")])

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = ConflictsViewModel(service: try context.session().decisions)
            await model.load()
            let conflicts = try loaded(model.state, failure: model.failure)
            let shortIDs = await context.shortIDs(ConflictsScreen.idsShown(by: conflicts))
            try context.output.show(ConflictsScreen(conflicts, shortIDs: shortIDs))
            return .success
        }
    }

    struct Show: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "show", abstract: "Show a conflict field by field: base, local and server values.",
            discussion: """
            Every field that differs is listed with its value in the version both sides
            started from (BASE), here (LOCAL) and on the server (SERVER), written as JSON
            (text in double quotes). MERGE says what happens to it: 'clash' fields need a
            decision ('shelf resolve'); the others keep the one side's change.
            """,
            examples: [
                Example("What clashes on a book", "shelf conflicts show books/b-42"),
                Example("The same, for a script", "shelf --json conflicts show b-42"),
            ])

        @Argument(name: "id", help: "The conflicted record: its id (a unique prefix will do), or COLLECTION/ID (see 'shelf conflicts').", completion: .conflicts)
        var record: RecordReference

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = ConflictsViewModel(service: try context.session().decisions)
            try outcome(await model.open(record.id, in: record.collection), failure: model.failure)
            try context.output.show(ConflictDetailScreen(try outcome(model.detail, failure: model.failure)))
            return .success
        }
    }
}

/// `resolve books/b-42 --keep local|remote`, `--field title=local`, `--set title=…`, `--edit`.
struct ResolveCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "resolve", abstract: "Settle a conflict: whose value each clashing field keeps, or a value of your own.",
        discussion: """
        Only clashing fields are decided ('shelf conflicts show ID' lists them); every
        field only one side changed keeps that change. The result is sent on the next
        sync against the server's current version (If-Match), so a change the server got
        meanwhile is merged again, not overwritten.

        --keep gives every clashing field not named otherwise that side's value. --field
        and --set name one field each, as 'conflicts show' or --json names it
        (author_name or author), and may repeat.
        A --set value is read by the field's kind: text as written (in double quotes, a
        JSON string: --set 'title="null"'), a number, true or false; null clears a field.
        The result must still be a valid record (a title cannot be empty).

        --edit opens the clashing fields in $VISUAL, $EDITOR or vi as 'field: value' lines,
        each filled in with the local value, the base, local and server values below it
        as # comments; write the value to keep and save. A form saved with no value
        changed, or one that cannot be read, changes nothing.
        """,
        examples: [
            Example("Keep this device's version of the clashing fields", "shelf resolve books/b-42 --keep local"),
            Example("Decide field by field", "shelf resolve b-42 --field title=local --field author=remote"),
            Example("Write the title by hand, the server's value for the rest", "shelf resolve b-42 --set 'title=The Dispossessed' --keep remote"),
            Example("Merge in an editor", "shelf resolve b-42 --edit"),
        ])

    @Argument(name: "id", help: "The conflicted record: its id (a unique prefix will do), or COLLECTION/ID (see 'shelf conflicts').", completion: .conflicts)
    var record: RecordReference
    @Option(value: "local|remote", help: "Whose values the clashing fields not named by --field or --set take.")
    var keep: ConflictResolver.Side?
    @Option(value: "field=local|remote", help: "Whose value one clashing field takes (repeatable).")
    var field: [FieldSideChoice]
    @Option(name: "set", value: "field=value", help: "A value of your own for one clashing field (repeatable).")
    var values: [FieldValueChoice]
    @Flag(help: "Merge the clashing fields in $VISUAL, $EDITOR or vi.")
    var edit = false

    func validate() throws(ParseError) {
        if edit, keep != nil || !field.isEmpty || !values.isEmpty {
            throw .invalid("Give --edit alone: the form holds every clashing field")
        }
        if !edit, keep == nil, field.isEmpty, values.isEmpty {
            throw .invalid("Nothing chosen: give --keep local|remote, --field FIELD=local|remote, --set FIELD=VALUE or --edit")
        }
        var seen: Set<String> = []
        for name in field.map(\.name) + values.map(\.name) where !seen.insert(name).inserted {
            throw .invalid("Field '\(name)' is given twice: choose one value for it")
        }
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let model = ConflictsViewModel(service: try context.session().decisions)
        try outcome(await model.open(record.id, in: record.collection), failure: model.failure)
        let decisions: ConflictDecisions
        if edit {
            decisions = try decisionsFromEditor(model, context)
        } else {
            var choices: [String: ConflictDecisions.Choice] = [:]
            for choice in field { choices[choice.name] = .keep(choice.side) }
            for choice in values { choices[choice.name] = .written(choice.text) }
            decisions = ConflictDecisions(others: keep, fields: choices)
        }
        let resolution = try outcome(await model.resolve(decisions), failure: model.failure)
        try context.output.confirm(ResolutionScreen(resolution))
        return .success
    }

    /// The form filled in by the reader; the file is removed once its decisions read,
    /// and kept (its path in the message) when they do not, so no typing is lost.
    @MainActor private func decisionsFromEditor(_ model: ConflictsViewModel<StoreDecisions>, _ context: CommandContext) throws -> ConflictDecisions {
        let (collection, id) = try outcome(model.opened, failure: model.failure)
        let form = ConflictEditForm(try outcome(model.detail, failure: model.failure))
        guard !form.detail.clashingFields.isEmpty else {
            throw CommandFailure(.dataError, "no field of \(collection.rawValue)/\(id) clashes on its own (a deletion is settled whole): use --keep local|remote")
        }
        let edited: EditedText
        do {
            // The same editor as `note add --edit`: $VISUAL, $EDITOR, then vi, run as git runs it.
            edited = try ExternalEditor(environment: context.environment).edit(form.text, name: "resolve", limit: 1 << 20)
        } catch {
            throw CommandFailure(error.exitCode, error.description)
        }
        do {
            let decisions = try form.decisions(from: edited.text)
            edited.discard()
            return decisions
        } catch .unchanged {
            edited.discard()
            throw ConflictEditFormError.unchanged
        } catch {
            edited.keep()
            throw CommandFailure(.dataError, "\(error); nothing was changed, and your text is kept in \(edited.file)")
        }
    }
}

struct FailedCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "failed", abstract: "List changes the server refused (dead letters).",
        examples: [Example("The refused changes and why", "shelf failed")])

    func run(_ context: CommandContext) async throws -> ExitCode {
        let model = FailedChangesViewModel(service: try context.session().decisions)
        await model.load()
        try context.output.show(FailedChangesScreen(try loaded(model.state, failure: model.failure)))
        return .success
    }
}

struct RetryCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "retry", abstract: "Queue a refused change to be sent again on the next sync.",
        examples: [Example("Send a refused change again", "shelf retry 12")])

    @Argument(help: "The failed change's id (see 'shelf failed').", completion: .failedChanges)
    var id: FailedChangeID

    func run(_ context: CommandContext) async throws -> ExitCode {
        let model = FailedChangesViewModel(service: try context.session().decisions)
        try outcome(await model.retry(id.value), failure: model.failure)
        try context.output.confirm(ChangeScreen.retried(failedChange: id.value))
        return .success
    }
}

struct DiscardCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "discard", abstract: "Drop a refused change and restore the server's version.",
        examples: [Example("Give up a refused change", "shelf discard 12")])

    @Argument(help: "The failed change's id (see 'shelf failed').", completion: .failedChanges)
    var id: FailedChangeID

    func run(_ context: CommandContext) async throws -> ExitCode {
        let model = FailedChangesViewModel(service: try context.session().decisions)
        try outcome(await model.discard(id.value), failure: model.failure)
        try context.output.confirm(ChangeScreen.discarded(failedChange: id.value))
        return .success
    }
}

// MARK: - Values on the command line

/// `books/b-42` or `b-42`: a record by its id, with its collection when the id alone
/// could name records of several.
struct RecordReference: ExpressibleByArgument {
    let collection: CollectionName?
    let id: String

    init?(argument: String) {
        let parts = argument.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        if parts.count == 2 {
            guard let collection = CollectionName(rawValue: parts[0]) else { return nil }
            self.collection = collection
        } else {
            collection = nil
        }
        guard let id = parts.last, (try? RecordID.validate(id)) != nil else { return nil }
        self.id = id
    }

    static let expectation = "ID or COLLECTION/ID, e.g. b-42 or books/b-42"

    static func refusal(of word: String, for parameter: String) -> String {
        "Invalid record '\(word)': expected \(expectation)"
    }
}

/// `title=local`: the side one clashing field takes.
struct FieldSideChoice: ExpressibleByArgument {
    let name: String
    let side: ConflictResolver.Side

    init?(argument: String) {
        guard let (name, value) = fieldAssignment(argument), let side = ConflictResolver.Side(rawValue: value) else { return nil }
        self.name = name
        self.side = side
    }

    static let expectation = "FIELD=local or FIELD=remote, e.g. title=local"
}

/// `title=The Dispossessed`: a value written for one clashing field, read by the
/// field's kind once the conflict is known (`FieldValueText`).
struct FieldValueChoice: ExpressibleByArgument {
    let name: String
    let text: String

    init?(argument: String) {
        guard let (name, text) = fieldAssignment(argument) else { return nil }
        self.name = name
        self.text = text
    }

    static let expectation = "FIELD=VALUE, e.g. 'title=The Dispossessed'"
}

/// `name=value` split at the first `=`, with a non-empty name.
private func fieldAssignment(_ argument: String) -> (String, String)? {
    guard let equals = argument.firstIndex(of: "=") else { return nil }
    let name = String(argument[..<equals])
    guard !name.isEmpty, !name.contains(where: \.isWhitespace) else { return nil }
    return (name, String(argument[argument.index(after: equals)...]))
}

/// The number `shelf failed` lists a refused change under.
struct FailedChangeID: ExpressibleByArgument {
    let value: Int64

    init?(argument: String) {
        guard let value = Int64(argument), value > 0 else { return nil }
        self.value = value
    }

    static let expectation = "a number from 'shelf failed'"

    static func refusal(of word: String, for parameter: String) -> String {
        "Invalid failed-change id '\(word)': expected \(expectation)"
    }
}

extension ConflictResolver.Side: ExpressibleByArgument {}
