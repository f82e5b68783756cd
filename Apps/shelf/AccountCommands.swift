import ArgumentParsing
import Foundation
import Presentation
import Storage

// MARK: - AccountCommands

/// `shelf account add|list|use|rm`: the account files under `$XDG_CONFIG_HOME/shelf`
/// (written 0600 by `AccountStore`). No store is opened and no server is asked.
@MainActor
enum AccountCommands {
    /// Adds an account; the first one becomes the current account.
    ///
    /// The password comes from `--password-file` (kept as a path: the secret stays where
    /// the operator put it), `SHELF_PASSWORD`, `SHELF_PASSWORD_FILE`, or a prompt without
    /// echo on a terminal — never from an argument.
    static func add(_ context: CommandContext) async throws -> ExitCode {
        let accounts = accountStore(context)
        let name = try AccountName.checked(try context.argument("name"))
        guard !accounts.exists(name) else { throw AccountConfigError.alreadyExists(name.rawValue) }
        let server = try AccountConfig.normalizedServer(try context.requiredOption("server"))
        let user = try context.requiredOption("user")

        let config: AccountConfig
        if let file = context.invocation.option("password-file") ?? passwordFileFromEnvironment(context) {
            let path = absolutePath(file)
            // NB: read now so an unsafe, missing or empty file is refused before anything is written.
            _ = try SecretFile.read(path)
            config = try AccountConfig(server: server, user: user, passwordFile: path)
        } else {
            config = try AccountConfig(server: server, user: user, password: try password(context, user: user, server: server))
        }
        try accounts.add(name, config)

        let current = accounts.currentAccount()
        if current == nil || !accounts.exists(current ?? name) { try accounts.setCurrentAccount(name) }
        let entry = AccountsScreen.Entry(
            name: name.rawValue, user: user, server: server, isCurrent: accounts.currentAccount() == name)
        try context.output.confirm(ChangeScreen.accountAdded(entry))
        return .success
    }

    static func list(_ context: CommandContext) async throws -> ExitCode {
        let accounts = accountStore(context)
        let current = accounts.currentAccount()
        var entries: [AccountsScreen.Entry] = []
        var problems: [String] = []
        for name in accounts.list() {
            do {
                let config = try accounts.load(name)
                entries.append(.init(name: name.rawValue, user: config.user, server: config.server, isCurrent: name == current))
            } catch {
                problems.append("account \(name): \(error)")
            }
        }
        try context.output.show(AccountsScreen(accounts: entries, problems: problems))
        return .success
    }

    static func use(_ context: CommandContext) async throws -> ExitCode {
        let accounts = accountStore(context)
        let name = try AccountName.checked(try context.argument("name"))
        let config = try accounts.load(name)
        try accounts.setCurrentAccount(name)
        try context.output.confirm(ChangeScreen.accountUsed(
            .init(name: name.rawValue, user: config.user, server: config.server, isCurrent: true)))
        return .success
    }

    /// Removes the account file; the account's local store stays, so nothing unsynced is lost.
    static func remove(_ context: CommandContext) async throws -> ExitCode {
        let accounts = accountStore(context)
        let name = try AccountName.checked(try context.argument("name"))
        try accounts.remove(name)
        try context.output.confirm(ChangeScreen.accountRemoved(name.rawValue, store: accounts.paths.database(name).description))
        return .success
    }

    // MARK: Helpers

    private static func accountStore(_ context: CommandContext) -> AccountStore {
        AccountStore(paths: ShelfPaths(environment: context.environment))
    }

    private static func passwordFileFromEnvironment(_ context: CommandContext) -> String? {
        guard context.environment["SHELF_PASSWORD"] == nil else { return nil }
        return context.environment["SHELF_PASSWORD_FILE"]
    }

    /// `SHELF_PASSWORD`, or the prompt on a terminal.
    private static func password(_ context: CommandContext, user: String, server: String) throws -> String {
        if let password = context.environment["SHELF_PASSWORD"] {
            guard !password.isEmpty else { throw AccountConfigError.emptyPassword(source: "SHELF_PASSWORD") }
            return password
        }
        guard context.output.terminal.stdinIsTerminal, let typed = PasswordPrompt.read(prompt: "Password for \(user) @ \(server): ") else {
            throw CommandFailure(.configuration, """
                no password: set SHELF_PASSWORD or SHELF_PASSWORD_FILE, give --password-file PATH (mode 600), \
                or run on a terminal to be asked
                """)
        }
        guard !typed.isEmpty else { throw AccountConfigError.emptyPassword(source: "the prompt") }
        return typed
    }

    /// A password file's path as the account file keeps it: absolute, so it still points
    /// to the same file from any working directory.
    private static func absolutePath(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path).standardized.path
    }
}
