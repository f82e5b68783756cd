import ArgumentParsing
import Domain
import Presentation
import Sync

// MARK: - DecisionCommands

/// What a sync left to the reader: `shelf conflicts`, `resolve`, `failed`, `retry`,
/// `discard`. Each decision is one transaction in the local store and reaches the
/// server with the next sync.
@MainActor
enum DecisionCommands {
    static func conflicts(_ context: CommandContext) async throws -> ExitCode {
        try context.output.show(ConflictsScreen(try resolver(context).conflicts()))
        return .success
    }

    /// `resolve books/b-42 --keep local|remote`.
    static func resolve(_ context: CommandContext) async throws -> ExitCode {
        let reference = try context.argument("collection/id")
        let parts = reference.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let collection = CollectionName(rawValue: parts[0]), !parts[1].isEmpty else {
            throw ParseError.invalid("Invalid record '\(reference)': expected COLLECTION/ID, e.g. books/b-42")
        }
        let keep = try context.requiredOption("keep")
        guard let side = ConflictResolver.Side(rawValue: keep) else {
            throw ParseError.invalidValue(option: "keep", value: keep, allowed: ConflictResolver.Side.allCases.map(\.rawValue))
        }
        try resolver(context).resolve(collection, id: parts[1], keep: side)
        try context.output.confirm(ChangeScreen.resolved(collection, id: parts[1], keptLocal: side == .local))
        return .success
    }

    static func failed(_ context: CommandContext) async throws -> ExitCode {
        try context.output.show(FailedChangesScreen(try resolver(context).failedChanges()))
        return .success
    }

    static func retry(_ context: CommandContext) async throws -> ExitCode {
        let id = try failedChangeID(context)
        try resolver(context).retry(deadLetter: id)
        try context.output.confirm(ChangeScreen.retried(failedChange: id))
        return .success
    }

    static func discard(_ context: CommandContext) async throws -> ExitCode {
        let id = try failedChangeID(context)
        try resolver(context).discard(deadLetter: id)
        try context.output.confirm(ChangeScreen.discarded(failedChange: id))
        return .success
    }

    // MARK: Helpers

    private static func resolver(_ context: CommandContext) throws -> ConflictResolver {
        ConflictResolver(store: try context.session().store)
    }

    private static func failedChangeID(_ context: CommandContext) throws -> Int64 {
        let raw = try context.argument("id")
        guard let id = Int64(raw), id > 0 else {
            throw ParseError.invalid("Invalid failed-change id '\(raw)': expected a number from 'shelf failed'")
        }
        return id
    }
}
