import ArgumentParsing
import Foundation

// MARK: - CommandContext

/// What a command runs with: the options every command accepts, the program's context
/// (environment, working directory, console, clock), the output, and the account
/// session, opened the first time a command asks for it (account management and help
/// never open a store).
@MainActor
final class CommandContext {
    /// The root's options (`--account`, `--json`, …), as given on this command line.
    let global: Shelf
    let program: ProgramContext
    let output: Output
    private(set) var openedSession: AccountSession?
    /// What the store's history says made the operations this command records: the
    /// command's path without the program's name (`book edit`).
    var operationOrigin = "shelf"

    nonisolated var environment: [String: String] { program.environment }
    nonisolated var console: Console { program.console }

    init(global: Shelf, program: ProgramContext) {
        self.global = global
        self.program = program
        let environment = program.environment
        let terminal = Terminal(console: program.console, environment: environment, color: global.noColor ? .never : global.color ?? .auto)
        output = Output(
            terminal: terminal, format: global.json ? .json : .text, quiet: global.quiet, verbose: global.verbose,
            unreadable: UnreadableLog(), noPager: global.noPager, progress: global.progress)
    }

    /// `--offline` or `SHELF_OFFLINE=1` (also `true`, `yes`, `on`): never touch the network.
    var isOffline: Bool {
        if global.offline { return true }
        guard let value = environment["SHELF_OFFLINE"]?.lowercased() else { return false }
        return ["1", "true", "yes", "on"].contains(value)
    }

    /// The account's session: store, repositories, server.
    func session() throws -> AccountSession {
        if let openedSession { return openedSession }
        let opened = try AccountSession(accountFlag: global.account, environment: environment, output: output, offline: isOffline, clock: program.clock)
        opened.store.setOperationOrigin(operationOrigin)
        opened.refuseEditsWithoutTheKey()
        openedSession = opened
        return opened
    }
}
