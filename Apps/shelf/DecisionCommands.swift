import ArgumentParsing
import Domain
import Screens
import Sync

// MARK: - Decisions

// What a sync left to the reader: `shelf conflicts`, `resolve`, `failed`, `retry`,
// `discard`. Each decision is one transaction in the local store and reaches the
// server with the next sync.

struct ConflictsCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "conflicts", abstract: "List conflicts waiting for a decision.",
        examples: [Example("The conflicts, and which fields clash", "shelf conflicts")])

    func run(_ context: CommandContext) async throws -> ExitCode {
        try context.output.show(ConflictsScreen(try ConflictResolver(store: context.session().store).conflicts()))
        return .success
    }
}

/// `resolve books/b-42 --keep local|remote`.
struct ResolveCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "resolve", abstract: "Settle a conflict by keeping the local or the server's values.",
        examples: [Example("Keep this device's version of a book", "shelf resolve books/b-42 --keep local")])

    @Argument(name: "collection/id", help: "The conflicted record, e.g. books/b-42 (a unique prefix of the id will do).")
    var record: RecordReference
    @Option(value: "local|remote", help: "Whose values the clashing fields take; fields only one side changed keep that change.")
    var keep: ConflictResolver.Side

    func run(_ context: CommandContext) async throws -> ExitCode {
        let resolver = try ConflictResolver(store: context.session().store)
        let id = try record.conflictID(among: resolver.conflicts())
        try resolver.resolve(record.collection, id: id, keep: keep)
        try context.output.confirm(ChangeScreen.resolved(record.collection, id: id, keptLocal: keep == .local))
        return .success
    }
}

struct FailedCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "failed", abstract: "List changes the server refused (dead letters).",
        examples: [Example("The refused changes and why", "shelf failed")])

    func run(_ context: CommandContext) async throws -> ExitCode {
        try context.output.show(FailedChangesScreen(try ConflictResolver(store: context.session().store).failedChanges()))
        return .success
    }
}

struct RetryCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "retry", abstract: "Queue a refused change to be sent again on the next sync.",
        examples: [Example("Send a refused change again", "shelf retry 12")])

    @Argument(help: "The failed change's id (see 'shelf failed').")
    var id: FailedChangeID

    func run(_ context: CommandContext) async throws -> ExitCode {
        try ConflictResolver(store: context.session().store).retry(deadLetter: id.value)
        try context.output.confirm(ChangeScreen.retried(failedChange: id.value))
        return .success
    }
}

struct DiscardCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "discard", abstract: "Drop a refused change and restore the server's version.",
        examples: [Example("Give up a refused change", "shelf discard 12")])

    @Argument(help: "The failed change's id (see 'shelf failed').")
    var id: FailedChangeID

    func run(_ context: CommandContext) async throws -> ExitCode {
        try ConflictResolver(store: context.session().store).discard(deadLetter: id.value)
        try context.output.confirm(ChangeScreen.discarded(failedChange: id.value))
        return .success
    }
}

// MARK: - Values on the command line

/// `books/b-42`: a record by its collection and id.
struct RecordReference: ExpressibleByArgument {
    let collection: CollectionName
    let id: String

    init?(argument: String) {
        let parts = argument.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let collection = CollectionName(rawValue: parts[0]), !parts[1].isEmpty else { return nil }
        self.collection = collection
        id = parts[1]
    }

    static let expectation = "COLLECTION/ID, e.g. books/b-42"

    /// The full id of the conflict this names: the id itself or a unique prefix of the
    /// id of one of `conflicts` in the collection (the record itself may be gone). An id
    /// that names none is kept, so the resolver says there is no such conflict.
    /// - Throws: `RecordLookupError.ambiguous` for a prefix of several.
    func conflictID(among conflicts: [ConflictSummary]) throws -> String {
        let candidates = conflicts.filter { $0.collection == collection }
            .map { RecordCandidate(id: $0.recordID, title: $0.label ?? "") }
        do {
            return try RecordReferenceMatch.resolve(id, among: candidates, in: collection)
        } catch .ambiguous(let collection, let reference, let candidates, let total) {
            throw RecordLookupError.ambiguous(collection, reference: reference, candidates: candidates, total: total)
        } catch {
            return id
        }
    }

    static func refusal(of word: String, for parameter: String) -> String {
        "Invalid record '\(word)': expected \(expectation)"
    }
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
