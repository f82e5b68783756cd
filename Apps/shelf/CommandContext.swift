import ArgumentParsing
import Foundation
import Presentation

// MARK: - CommandContext

/// What a command runs with: its parsed line, the environment, the output, and the
/// account session, opened the first time a command asks for it (account management
/// and help never open a store).
@MainActor
final class CommandContext {
    let invocation: Invocation
    let environment: [String: String]
    let output: Output
    private(set) var openedSession: AccountSession?

    init(invocation: Invocation, environment: [String: String]) {
        self.invocation = invocation
        self.environment = environment
        let terminal = Terminal(environment: environment, noColorFlag: invocation.flag("no-color"))
        output = Output(
            terminal: terminal, format: invocation.flag("json") ? .json : .text,
            quiet: invocation.flag("quiet"), verbose: invocation.flag("verbose"), unreadable: UnreadableLog())
    }

    /// `--offline` or `SHELF_OFFLINE=1` (also `true`, `yes`, `on`): never touch the network.
    var isOffline: Bool {
        if invocation.flag("offline") { return true }
        guard let value = environment["SHELF_OFFLINE"]?.lowercased() else { return false }
        return ["1", "true", "yes", "on"].contains(value)
    }

    /// The account's session: store, repositories, server.
    func session() throws -> AccountSession {
        if let openedSession { return openedSession }
        let opened = try AccountSession(
            accountFlag: invocation.option("account"), environment: environment, output: output, offline: isOffline)
        openedSession = opened
        return opened
    }

    // MARK: Arguments

    /// A positional argument the parser guarantees (it refuses a line without it).
    func argument(_ name: String) throws -> String {
        guard let value = invocation.argument(name) else { throw ParseError.missingArgument(name) }
        return value
    }

    /// An option the parser guarantees (declared `required`).
    func requiredOption(_ name: String) throws -> String {
        guard let value = invocation.option(name) else { throw ParseError.missingOption(name) }
        return value
    }

    /// An option's value as a whole number, or a usage error.
    func integerOption(_ name: String) throws -> Int? {
        try invocation.option(name, as: "a whole number") { Int($0) }
    }
}
