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
        name: "resolve", abstract: "Settle a conflict by keeping the local or the server's version.",
        examples: [Example("Keep this device's version of a book", "shelf resolve books/b-42 --keep local")])

    @Argument(name: "collection/id", help: "The conflicted record, e.g. books/b-42.")
    var record: String
    @Option(value: "local|remote", help: "Which version to keep.")
    var keep: ConflictResolver.Side

    func validate() throws(ParseError) {
        _ = try reference()
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let (collection, id) = try reference()
        try ConflictResolver(store: context.session().store).resolve(collection, id: id, keep: keep)
        try context.output.confirm(ChangeScreen.resolved(collection, id: id, keptLocal: keep == .local))
        return .success
    }

    /// `books/b-42` as its collection and id.
    private func reference() throws(ParseError) -> (CollectionName, String) {
        let parts = record.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let collection = CollectionName(rawValue: parts[0]), !parts[1].isEmpty else {
            throw .invalid("Invalid record '\(record)': expected COLLECTION/ID, e.g. books/b-42")
        }
        return (collection, parts[1])
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
    var id: String

    func validate() throws(ParseError) {
        _ = try FailedChangeID.parse(id)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let deadLetter = try FailedChangeID.parse(id)
        try ConflictResolver(store: context.session().store).retry(deadLetter: deadLetter)
        try context.output.confirm(ChangeScreen.retried(failedChange: deadLetter))
        return .success
    }
}

struct DiscardCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "discard", abstract: "Drop a refused change and restore the server's version.",
        examples: [Example("Give up a refused change", "shelf discard 12")])

    @Argument(help: "The failed change's id (see 'shelf failed').")
    var id: String

    func validate() throws(ParseError) {
        _ = try FailedChangeID.parse(id)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let deadLetter = try FailedChangeID.parse(id)
        try ConflictResolver(store: context.session().store).discard(deadLetter: deadLetter)
        try context.output.confirm(ChangeScreen.discarded(failedChange: deadLetter))
        return .success
    }
}

// MARK: - Values on the command line

/// The number `shelf failed` lists a refused change under.
private enum FailedChangeID {
    static func parse(_ raw: String) throws(ParseError) -> Int64 {
        guard let id = Int64(raw), id > 0 else {
            throw .invalid("Invalid failed-change id '\(raw)': expected a number from 'shelf failed'")
        }
        return id
    }
}

extension ConflictResolver.Side: ExpressibleByArgument {}
