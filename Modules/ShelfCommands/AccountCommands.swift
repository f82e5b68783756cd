import ArgumentParsing
import Domain
import Encryption
import Foundation
import Presentation
import Screens
import Services
import Storage
import Sync

// MARK: - shelf account

/// `shelf account add|list|use|rm|password`: the account files under `$XDG_CONFIG_HOME/shelf`
/// (written 0600 by `AccountStore`). Only `add` and `password` ask the server (to verify
/// the password); a store is opened only to adopt local-only work, or to count what
/// `rm` would leave unsynced.
struct AccountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "account", abstract: "Add, list, choose or remove accounts, or give one a new password.",
        subcommands: [Add.self, List.self, Use.self, Remove.self, Password.self])

    static func accountStore(_ context: CommandContext) -> AccountStore {
        AccountStore(paths: ShelfPaths(environment: context.environment))
    }

    /// The view model every account change goes through.
    @MainActor static func viewModel(_ context: CommandContext) -> AccountsViewModel<AccountFiles> {
        AccountsViewModel(service: AccountFiles(store: accountStore(context)))
    }
}

// MARK: - shelf account add

extension AccountCommand {
    /// Adds an account; the first one becomes the current account.
    ///
    /// The password comes from `--password-file` (kept as a path: the secret stays where
    /// the operator put it), `SHELF_PASSWORD_FILE`, `SHELF_PASSWORD`, or a prompt without
    /// echo on a terminal, in that order (`PasswordPrecedence`) — never from an argument.
    /// What is done with them (verifying, signing up with `--create`, saving, adopting
    /// local work) is Sync's `AccountAddition`.
    struct Add: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "add", abstract: "Add an account.",
            discussion: """
            The password comes from --password-file (which must not be readable by group or
            others), SHELF_PASSWORD_FILE, SHELF_PASSWORD, or a prompt without echo on a
            terminal: the first that is given wins. It is never taken as an argument, so it
            never shows in the process list or shell history.

            Before saving, the server is asked (GET /v1/) whether it is a Kinto that Shelf
            can sync with and whether it accepts the password: a wrong password exits 77, an
            unreachable server 75 (--no-verify adds the account anyway), a certificate that
            does not verify 78. --create first signs the user up (Kinto's accounts plugin).
            https:// is verified against the system's CAs, or those of --ca-file /
            SHELF_CA_FILE; plain http:// to another machine is accepted with a warning.
            """,
            examples: [
                Example(
                    "An account whose password is in a file",
                    "SHELF_PASSWORD_FILE=~/.kinto-pw shelf account add home --server https://kinto.example.org/v1 --user ana"),
                Example(
                    "Sign up on a server with a private CA",
                    "shelf account add home --server https://kinto.lan/v1 --user ana --ca-file /etc/ssl/lan-ca.pem --create"),
            ])

        @Argument(help: "A name for the account (letters, digits, '.', '-', '_').")
        var name: String
        @Option(value: "url", help: "The Kinto server, e.g. http://127.0.0.1:8888/v1.")
        var server: String
        @Option(value: "user", help: "The user name.")
        var user: String
        @Option(value: "path", help: "A file holding the password (mode 600).", completion: .file)
        var passwordFile: String?
        @Option(value: "path", help: "Trust the CAs in this PEM file for the server (a private CA).", completion: .file)
        var caFile: String?
        @Flag(help: "Sign the user up first (a server with Kinto's accounts plugin).")
        var create = false
        @Flag(help: "Save without asking the server (e.g. while it is unreachable).")
        var noVerify = false
        @Flag(help: "Turn end-to-end encryption on before anything is uploaded (asks for a new passphrase; see 'shelf encryption').")
        var encrypted = false
        @OptionGroup
        var newPassphrase = NewPassphraseOptions()

        func run(_ context: CommandContext) async throws -> ExitCode {
            let addition = try AccountAddition(name: name, server: server, accounts: accountStore(context))
            let caFile = try trustedCAFile(context)
            // NB: read before anything is asked for, so a bad value wastes no typing.
            let timeouts = try LimitOverrides(environment: context.environment).timeouts(AccountVerification.defaultTimeouts)
            // NB: offline (`--offline`, `SHELF_OFFLINE`) never touches the network: the
            // account is saved as with `--no-verify`, and `--create` can't be done.
            let verifies = !noVerify && !context.isOffline
            if create && !verifies {
                throw ParseError.invalid("Use either '--create' or '--no-verify' (or --offline), not both")
            }
            if encrypted && !verifies {
                throw ParseError.invalid("'--encrypted' needs the server: not with '--no-verify' or --offline")
            }
            // NB: asked for before anything is saved, so a missing passphrase adds nothing.
            let passphrase = encrypted
                ? try EncryptionCommand.passphrase(
                    context, prompt: "New passphrase for account \(name)", confirming: true, new: newPassphrase) : nil
            let password = try Self.password(context, optionFile: passwordFile, user: user, server: addition.server)

            let output = context.output
            let model = viewModel(context)
            let request = AccountFiles.Addition(
                addition: addition, user: user, password: password, caFile: caFile,
                verification: verifies ? (create ? .signUpAndVerify : .verify) : .none, timeouts: timeouts)
            let added = try outcome(await model.add(request, notify: { notice in
                switch notice {
                case .warning(let warning): output.warn(warning)
                case .note(let note): output.note(note)
                }
            }), failure: model.failure)
            let entry = AccountsScreen.Entry(
                name: added.name.rawValue, user: added.user, server: added.server, isCurrent: added.isCurrent)
            try output.confirm(ChangeScreen.accountAdded(entry))
            if let adopted = added.adopted {
                try output.confirm(ChangeScreen.localWorkAdopted(
                    account: added.name.rawValue, records: adopted.records, pendingChanges: adopted.pendingChanges))
            }
            if verifies { try await settleEncryption(of: added, passphrase: passphrase, context) }
            return .success
        }

        /// `--encrypted` turns encryption on; an account another device encrypted is
        /// added all the same, and the reader is told how to join it.
        private func settleEncryption(of added: AccountAddition.Added, passphrase: Passphrase?, _ context: CommandContext) async throws {
            let sync = try EncryptionCommand.accountSync(context, account: added.name.rawValue)
            if let passphrase {
                let change = try await EncryptionCommand.asking { try await sync.encryption.enable(passphrase: passphrase) }
                try context.output.confirm(EncryptionChangeScreen(.enabled, account: added.name.rawValue, queued: change.queued))
            } else if (try? await sync.encryption.isEncryptedOnServer()) == true {
                context.output.warn("account \(added.name) is encrypted end to end: run 'shelf encryption join' before 'shelf sync' to read its records here")
            }
        }

        // MARK: The person's inputs

        /// `--ca-file` or `SHELF_CA_FILE`, as an absolute path to a readable file.
        private func trustedCAFile(_ context: CommandContext) throws -> String? {
            guard let raw = caFile ?? context.environment["SHELF_CA_FILE"].flatMap({ $0.isEmpty ? nil : $0 }) else { return nil }
            let path = context.program.absolutePath(raw)
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw CommandFailure(.configuration, "cannot read the CA file \(path)")
            }
            return path
        }

        /// The password to save, in `PasswordPrecedence`'s order: `--password-file`,
        /// `SHELF_PASSWORD_FILE`, `SHELF_PASSWORD`, then the prompt on a terminal.
        static func password(
            _ context: CommandContext, optionFile: String?, user: String, server: String
        ) throws -> AccountAddition.Password {
            switch PasswordPrecedence.resolve(.save(optionFile: optionFile), environment: context.environment) {
            case .file(let path, _):
                return .file(path: context.program.absolutePath(path))
            case .given(let password):
                guard !password.isEmpty else { throw AccountConfigError.emptyPassword(source: PasswordPrecedence.passwordVariable) }
                return .given(password)
            case nil:
                return .given(try prompt(context, user: user, server: server))
            }
        }

        /// The password typed at a prompt without echo, on a terminal only.
        private static func prompt(_ context: CommandContext, user: String, server: String) throws -> String {
            guard context.output.terminal.stdinIsTerminal, let typed = context.console.readSecret("Password for \(user) @ \(server): ") else {
                throw CommandFailure(.configuration, """
                    no password: set SHELF_PASSWORD or SHELF_PASSWORD_FILE, give --password-file PATH (mode 600), \
                    or run on a terminal to be asked
                    """)
            }
            guard !typed.isEmpty else { throw AccountConfigError.emptyPassword(source: "the prompt") }
            return typed
        }
    }
}

// MARK: - shelf account list|use|rm

extension AccountCommand {
    struct List: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "list", abstract: "List accounts; the current one is marked.", examples: [Example("The accounts", "shelf account list")])

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = viewModel(context)
            await model.load()
            let listing = try loaded(model.state, failure: model.failure)
            try context.output.show(AccountsScreen(accounts: listing.accounts, problems: listing.problems))
            return .success
        }
    }

    struct Use: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "use", abstract: "Make an account the current one.", examples: [Example("Switch to another account", "shelf account use work")])

        @Argument(help: "The account.", completion: .accounts)
        var name: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = viewModel(context)
            let account = try outcome(await model.use(name), failure: model.failure)
            try context.output.confirm(ChangeScreen.accountUsed(account))
            return .success
        }
    }

    /// Removes the account file; the account's local store stays. An account whose store
    /// holds changes not synced yet is refused (exit 1) unless `--yes` confirms it: once
    /// the account is gone, nothing syncs them.
    struct Remove: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "rm", abstract: "Remove an account (its local store is kept).",
            discussion: """
            An account whose local store holds changes not synced yet (waiting, in conflict
            or refused) is kept, exit 1, saying how many: sync them first, or confirm with
            --yes (or --force). The local store stays on this machine either way.
            """,
            examples: [
                Example("Forget an account (its data stays on this machine)", "shelf account rm work"),
                Example("Even though changes wait to be sent", "shelf account rm work --yes"),
            ])

        @Argument(help: "The account.", completion: .accounts)
        var name: String
        @Flag(short: "y", help: "Remove it even though its store holds changes not synced yet.")
        var yes = false
        @Flag(help: "The same as --yes.")
        var force = false

        func run(_ context: CommandContext) async throws -> ExitCode {
            let model = viewModel(context)
            let removed = try outcome(await model.remove(name, discardingUnsynced: yes || force), failure: model.failure)
            if !removed.unsynced.isEmpty {
                context.output.warn("account \(removed.name) was removed with \(removed.unsynced) in its local store")
            }
            try context.output.confirm(ChangeScreen.accountRemoved(removed.name.rawValue, store: removed.store))
            return .success
        }
    }
}

// MARK: - shelf account password

extension AccountCommand {
    /// Gives an account a new password — the mend for a password file that went missing
    /// or changed mode, and for a password changed on the server. The new one is checked
    /// with the server before the account file is rewritten (`AccountPasswordChange`).
    struct Password: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "password", abstract: "Give an account a new password (checked with the server before it is saved).",
            discussion: """
            The password comes from --password-file (mode 600; the path is kept, not the
            password), SHELF_PASSWORD_FILE, SHELF_PASSWORD, or a prompt without echo on a
            terminal, the first that is given — never from an argument. The server is
            asked (GET /v1/) whether it accepts it for the account's user: a refused
            password exits 77 and changes nothing, an unreachable server 75 (--no-verify
            saves it anyway).
            """,
            examples: [
                Example("Asked on the terminal", "shelf account password home"),
                Example("From a file that moved", "shelf account password home --password-file ~/.config/kinto-pw"),
            ])

        @Argument(help: "The account (the current one when not given).", completion: .accounts)
        var name: String?
        @Option(value: "path", help: "A file holding the password (mode 600).", completion: .file)
        var passwordFile: String?
        @Flag(help: "Save without asking the server (e.g. while it is unreachable).")
        var noVerify = false

        func run(_ context: CommandContext) async throws -> ExitCode {
            let accounts = accountStore(context)
            let chosen = name ?? context.global.account ?? accounts.currentAccount()?.rawValue
            guard let chosen else {
                throw CommandFailure(.configuration, "no account to change: name one ('shelf account password NAME'), or add one with 'shelf account add'")
            }
            let change = try AccountPasswordChange(name: try AccountName.checked(chosen), accounts: accounts)
            // NB: read before the password is asked for, so a bad value wastes no typing.
            let timeouts = try LimitOverrides(environment: context.environment).timeouts(AccountVerification.defaultTimeouts)
            let password = try Add.password(context, optionFile: passwordFile, user: change.config.user, server: change.config.server)
            let output = context.output
            let model = viewModel(context)
            let request = AccountFiles.PasswordChange(
                change: change, password: password, verifies: !noVerify && !context.isOffline, timeouts: timeouts)
            let changed = try outcome(await model.changePassword(request, notify: { notice in
                switch notice {
                case .warning(let warning): output.warn(warning)
                case .note(let note): output.note(note)
                }
            }), failure: model.failure)
            try output.confirm(ChangeScreen.accountPasswordChanged(
                changed.name.rawValue, user: changed.user, server: changed.server, kept: changed.kept, verified: changed.verified))
            return .success
        }
    }
}
