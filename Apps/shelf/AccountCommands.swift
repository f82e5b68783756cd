import ArgumentParsing
import Foundation
import Domain
import Presentation
import Storage
import Sync

// MARK: - AccountCommands

/// `shelf account add|list|use|rm`: the account files under `$XDG_CONFIG_HOME/shelf`
/// (written 0600 by `AccountStore`). Only `add` asks the server (to verify it); no
/// store is opened except to adopt local-only work.
@MainActor
enum AccountCommands {
    /// Adds an account; the first one becomes the current account.
    ///
    /// The password comes from `--password-file` (kept as a path: the secret stays where
    /// the operator put it), `SHELF_PASSWORD`, `SHELF_PASSWORD_FILE`, or a prompt without
    /// echo on a terminal — never from an argument. Unless `--no-verify`, the server and
    /// the credentials are checked first (`AccountVerification`), after signing up with
    /// `--create`; nothing is saved when they fail.
    static func add(_ context: CommandContext) async throws -> ExitCode {
        let accounts = accountStore(context)
        let name = try AccountName.checked(try context.argument("name"))
        guard !accounts.exists(name) else { throw AccountConfigError.alreadyExists(name.rawValue) }
        let server = try AccountConfig.normalizedServer(try context.requiredOption("server"))
        let user = try context.requiredOption("user")
        let caFile = try caFile(context)
        // NB: offline (`--offline`, `SHELF_OFFLINE`) never touches the network: the
        // account is saved as with `--no-verify`, and `--create` can't be done.
        let verifies = !context.invocation.flag("no-verify") && !context.isOffline
        if context.invocation.flag("create") && !verifies {
            throw ParseError.invalid("Use either '--create' or '--no-verify' (or --offline), not both")
        }

        let config: AccountConfig
        let password: String
        if let file = context.invocation.option("password-file") ?? passwordFileFromEnvironment(context) {
            let path = absolutePath(file)
            // NB: read now so an unsafe, missing or empty file is refused before anything is written.
            password = try SecretFile.read(path)
            config = try AccountConfig(server: server, user: user, passwordFile: path, caFile: caFile)
        } else {
            password = try Self.password(context, user: user, server: server)
            config = try AccountConfig(server: server, user: user, password: password, caFile: caFile)
        }
        if let warning = AccountVerification.cleartextWarning(server: server) { context.output.warn(warning) }

        var capabilities: ServerCapabilities?
        if verifies {
            let verification = AccountVerification(
                server: server, credentials: Credentials(user: user, password: password), caFile: caFile)
            if context.invocation.flag("create") {
                if try await verification.signUp() == .alreadyExists {
                    context.output.note("user \(user) already has an account on \(server); checking its password")
                }
            }
            let verified = try await verification.verify()
            for warning in verified.warnings { context.output.warn(warning) }
            context.output.note("verified \(server): Kinto API \(verified.capabilities.httpAPIVersion), user id \(verified.userID)")
            capabilities = verified.capabilities
        }
        try accounts.add(name, config)
        if let capabilities {
            // A cache: a failed write only costs the first sync one more request.
            try? ServerCapabilitiesCache(paths: accounts.paths).save(capabilities, for: name, server: server)
        }
        // Work done before there was any account moves to the new one, to be synced.
        let adopted = try LocalStoreAdoption.adopt(into: name, paths: accounts.paths)

        let current = accounts.currentAccount()
        if current == nil || !accounts.exists(current ?? name) { try accounts.setCurrentAccount(name) }
        let entry = AccountsScreen.Entry(
            name: name.rawValue, user: user, server: server, isCurrent: accounts.currentAccount() == name)
        try context.output.confirm(ChangeScreen.accountAdded(entry))
        if let adopted {
            try context.output.confirm(ChangeScreen.localWorkAdopted(
                account: name.rawValue, records: adopted.records, pendingChanges: adopted.pendingChanges))
        }
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

    /// `--ca-file` or `SHELF_CA_FILE`, as an absolute path to a readable file.
    private static func caFile(_ context: CommandContext) throws -> String? {
        guard let raw = context.invocation.option("ca-file") ?? context.environment["SHELF_CA_FILE"].flatMap({ $0.isEmpty ? nil : $0 })
        else { return nil }
        let path = absolutePath(raw)
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CommandFailure(.configuration, "cannot read the CA file \(path)")
        }
        return path
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
