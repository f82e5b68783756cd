import ArgumentParsing
import Foundation

// MARK: - CommandRunner

/// Runs one command line: validates it against `ShelfCommandTree`, prints help or the
/// version, or runs the command, and turns whatever went wrong into `Error: …` and a
/// documented exit status.
@MainActor
struct CommandRunner {
    typealias Command = @MainActor (CommandContext) async throws -> ExitCode

    let arguments: [String]
    let environment: [String: String]

    private static let parser = CommandLineParser(root: ShelfCommandTree.root)
    private static let help = HelpRenderer(parser: parser, rootEpilogue: ShelfCommandTree.exitCodes)

    func run() async -> ExitCode {
        let invocation: Invocation
        do {
            invocation = try Self.parser.parse(arguments)
        } catch {
            let path = Self.parser.commandPath(for: arguments)
            Terminal.standardError(Self.help.usageError(error, path: path))
            return .usage
        }
        if invocation.wantsHelp {
            Terminal.standardOutput(Self.help.help(for: invocation.path))
            return .success
        }
        if invocation.flag("version") {
            Terminal.standardOutput("shelf \(ShelfCommandTree.version)\n")
            return .success
        }
        guard let command = Self.commands[invocation.command] else {
            // NB: unreachable while every leaf of the tree has a command here (the
            // end-to-end tests run each one); a group without a default subcommand is
            // refused by the parser before this point.
            Terminal.standardError("Error: 'shelf \(invocation.command)' has nothing to run\n")
            return .software
        }

        let context = CommandContext(invocation: invocation, environment: environment)
        let status: ExitCode
        var failed = false
        do {
            status = try await command(context)
        } catch let error as ParseError {
            Terminal.standardError(Self.help.usageError(error, path: invocation.path))
            status = .usage
            failed = true
        } catch {
            context.output.error(failureMessage(error))
            status = .classifying(error)
            failed = true
        }
        await context.openedSession?.finish(context.output, warn: !failed)
        return status
    }

    // MARK: Commands

    /// Every runnable command by its path below the root (`Invocation.command`).
    private static let commands: [String: Command] = [
        "books": LibraryCommands.list,
        "book show": LibraryCommands.show,
        "book add": LibraryCommands.add,
        "book edit": LibraryCommands.edit,
        "book finish": { try await LibraryCommands.setFinished($0, true) },
        "book unfinish": { try await LibraryCommands.setFinished($0, false) },
        "book rm": LibraryCommands.remove,
        "notes": NoteCommands.list,
        "note show": NoteCommands.show,
        "note add": NoteCommands.add,
        "note edit": NoteCommands.edit,
        "note rm": NoteCommands.remove,
        "tasks": TaskCommands.list,
        "task add": TaskCommands.add,
        "task done": { try await TaskCommands.setDone($0, true) },
        "task undo": { try await TaskCommands.setDone($0, false) },
        "task rm": TaskCommands.remove,
        "favorites": FavoriteCommands.list,
        "favorite": FavoriteCommands.toggle,
        "products": ShopCommands.products,
        "cart show": ShopCommands.cart,
        "cart add": ShopCommands.addToCart,
        "cart rm": ShopCommands.removeFromCart,
        "settings": SettingsCommands.settings,
        "open": NavigationCommands.open,
        "back": NavigationCommands.back,
        "where": NavigationCommands.show,
        "sync": SyncCommands.sync,
        "status": SyncCommands.status,
        "conflicts": DecisionCommands.conflicts,
        "resolve": DecisionCommands.resolve,
        "failed": DecisionCommands.failed,
        "retry": DecisionCommands.retry,
        "discard": DecisionCommands.discard,
        "account add": AccountCommands.add,
        "account list": AccountCommands.list,
        "account use": AccountCommands.use,
        "account rm": AccountCommands.remove,
        "doctor": StoreCommands.doctor,
        "backup": StoreCommands.backup,
        "restore": StoreCommands.restore,
    ]
}
