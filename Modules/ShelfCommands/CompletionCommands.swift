import ArgumentParsing
import Domain
import Foundation
import Storage
import Sync

// MARK: - shelf completion

/// `shelf completion bash|zsh|fish`: the completion script, written from the command
/// declarations (`CompletionScript`), so it knows every command and option there is.
struct CompletionCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "completion", abstract: "Print a shell completion script for bash, zsh or fish.",
        discussion: """
        The script completes commands, options, values from a fixed list (collections,
        formats, '--keep local|remote'), paths, account names and the ids of records in
        the local store (never asking the server). 'make install' puts each in the place
        its shell looks.
        """,
        examples: [
            Example("Complete in this bash session", "shelf completion bash"),
            Example("Install for zsh (a directory of $fpath)", "shelf completion zsh"),
            Example("Install for fish", "shelf completion fish"),
        ])

    @Argument(help: "bash, zsh or fish.")
    var shell: Shell

    func run(_ context: CommandContext) async throws -> ExitCode {
        let script = CompletionScript(parser: CommandLineParser(root: Shelf.self), helperCommand: WordListCommand.name)
        context.output.terminal.writeOut(script.render(for: shell))
        return .success
    }
}

// MARK: - shelf __complete (hidden)

/// The words the completion scripts cannot know in advance, from the local store only
/// (never the network), at most `limit` lines of `word<TAB>description`:
///
/// - `ids COLLECTION PREFIX`: ids of live records, with their titles or names
/// - `accounts PREFIX`: account names
/// - `conflicts PREFIX`: records waiting for `resolve`
/// - `pending PREFIX`: records whose unsynced change `undo` can take back, with titles
/// - `failed PREFIX`: ids of refused changes
///
/// A store that does not exist yet is not created: there is nothing to offer.
struct WordListCommand: ShelfCommand {
    static let name = "__complete"
    static let configuration = CommandConfiguration(
        name: name, abstract: "List words for shell completion (used by the completion scripts).",
        isHidden: true)

    /// Enough to choose from; a shell shows no more than this usefully.
    static let limit = 200
    /// Descriptions are cut to this many characters.
    static let descriptionLimit = 60

    @Argument(help: "ids, accounts, conflicts, pending or failed.")
    var kind: String
    @Argument(help: "The collection (ids), or the prefix.")
    var first: String?
    @Argument(help: "The prefix (ids).")
    var second: String?

    func run(_ context: CommandContext) async throws -> ExitCode {
        let paths = ShelfPaths(environment: context.environment)
        let lines: [(String, String?)]
        switch kind {
        case "ids":
            guard let collection = first.flatMap(CollectionName.init(rawValue:)) else {
                throw ParseError.invalid("Unknown collection '\(first ?? "")' for ids")
            }
            guard let store = try openStore(paths, context) else { return .success }
            lines = try store.labeledIDs(collection, prefix: second ?? "", limit: Self.limit).map { ($0.id, $0.label) }
        case "accounts":
            lines = AccountStore(paths: paths).list().map(\.rawValue).filter { $0.hasPrefix(first ?? "") }.map { ($0, nil) }
        case "conflicts":
            guard let store = try openStore(paths, context) else { return .success }
            lines = try store.read { try $0.conflicts() }
                .compactMap { Self.reference($0.collection, $0.recordID, typed: first ?? "").map { ($0, nil) } }
        case "pending":
            guard let store = try openStore(paths, context) else { return .success }
            // NB: what `undo ID` takes back: the records of the operations not synced yet,
            // newest first, then the changes made outside the history.
            let pending = try OperationHistory(store: store).pending()
            var seen: Set<String> = []
            let records = pending.operations.reversed().flatMap(\.records).map { ($0.collection, $0.id, $0.label) }
                + pending.outside.map { ($0.collection, $0.recordID, $0.label) }
            lines = records.compactMap { collection, id, label in
                guard seen.insert("\(collection.rawValue)/\(id)").inserted else { return nil }
                return Self.reference(collection, id, typed: first ?? "").map { ($0, label) }
            }
        case "failed":
            guard let store = try openStore(paths, context) else { return .success }
            lines = try store.read { try $0.deadLetters() }
                .map { ("\($0.id)", "\($0.collection.rawValue)/\($0.recordID)") }.filter { $0.0.hasPrefix(first ?? "") }
        default:
            throw ParseError.invalid("Unknown word list '\(kind)'; expected ids, accounts, conflicts, pending or failed")
        }
        var out = ""
        for (word, description) in lines.prefix(Self.limit) where Self.isPlain(word) {
            out += word
            if let description = description.map(Self.oneLine), !description.isEmpty { out += "\t" + description }
            out += "\n"
        }
        context.output.terminal.writeOut(out)
        return .success
    }

    /// The store of the account the line names, opened for reading; nil when it does
    /// not exist yet.
    private func openStore(_ paths: ShelfPaths, _ context: CommandContext) throws -> ShelfStore? {
        let selection = try AccountSession.resolve(accountFlag: context.global.account, environment: context.environment, paths: paths)
        let location = paths.database(selection.name)
        guard case .file(let url) = location, FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try ShelfStore(location: location, configuration: .reader)
    }

    /// How a command taking `ID or COLLECTION/ID` is offered a record for `typed`: the
    /// bare id when that is what is being typed, `collection/id` otherwise (and for an
    /// empty word, so records of different collections cannot look alike); nil when
    /// neither starts with `typed`.
    static func reference(_ collection: CollectionName, _ id: String, typed: String) -> String? {
        let reference = "\(collection.rawValue)/\(id)"
        if !typed.isEmpty, id.hasPrefix(typed) { return id }
        return reference.hasPrefix(typed) ? reference : nil
    }

    /// A word a shell can take as it is: no spaces, quotes or control characters
    /// (record ids from another client could hold anything).
    static func isPlain(_ word: String) -> Bool {
        !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            scalar.value > 0x20 && scalar.value != 0x7F && !"'\"\\`$".unicodeScalars.contains(scalar)
        }
    }

    /// A description on one line, control characters as spaces, cut with `…`.
    static func oneLine(_ text: String) -> String {
        let flat = String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
            .trimmingCharacters(in: .whitespaces)
        return flat.count > descriptionLimit ? String(flat.prefix(descriptionLimit - 1)) + "…" : flat
    }
}

// MARK: - Completions of Shelf's words

extension CompletionKind {
    /// Ids of the live records of a collection in the local store.
    static func ids(_ collection: CollectionName) -> CompletionKind { .dynamic(["ids", collection.rawValue]) }
    static let accounts = CompletionKind.dynamic(["accounts"])
    /// `collection/id` (or the id being typed) of the records waiting for `resolve`.
    static let conflicts = CompletionKind.dynamic(["conflicts"])
    /// `collection/id` (or the id being typed) of the records `undo` can take back.
    static let pendingChanges = CompletionKind.dynamic(["pending"])
    /// Ids of refused changes (`retry`, `discard`).
    static let failedChanges = CompletionKind.dynamic(["failed"])
}

extension ListOrder {
    /// What a shell offers for `--sort`: each field, then each descending.
    static var completionWords: CompletionKind { .values(Field.names + Field.names.map { "-" + $0 }) }
}
