import ArgumentParsing
import Domain
import Encryption
import Foundation
import Repositories
import Screens
import Services
import Storage
import Sync

// MARK: - shelf encryption

/// `shelf encryption enable|join|status|change-passphrase|rotate|lock`: end-to-end
/// encryption of the account's records (`AccountEncryption`; docs/encryption.md).
struct EncryptionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "encryption", abstract: "Encrypt the account's records end to end: turn it on, join it, rotate, lock.",
        discussion: """
        With encryption on, the server keeps the reader's records sealed and cannot read
        them. The passphrase comes from SHELF_PASSPHRASE_FILE (no group or other
        permissions), a systemd credential (shelf-passphrase), or a prompt without echo on
        a terminal — never from an argument. A wrong passphrase exits 77 and writes nothing.
        A new passphrase must have \(PassphraseRule.statement): a weaker one is refused (65)
        unless --weak-passphrase-ok is given, and said to be weak on a terminal either way.
        """,
        subcommands: [Enable.self, Join.self, Status.self, ChangePassphrase.self, Rotate.self, Lock.self, PutBack.self])
}

// MARK: - The account's encryption

extension EncryptionCommand {
    /// The account's wiring, for a command that needs the server.
    /// - Parameter account: this account rather than the one the command line names.
    static func accountSync(_ context: CommandContext, account name: String? = nil) throws -> AccountSync {
        let paths = ShelfPaths(environment: context.environment)
        let selection = try AccountSession.resolve(accountFlag: name ?? context.global.account, environment: context.environment, paths: paths)
        guard case .account(let account) = selection else {
            throw CommandFailure.noServer(paths.database(.localOnly).description)
        }
        let limits = try LimitOverrides(environment: context.environment)
        let sync = try AccountSync(
            account: account, paths: paths, transport: limits.transport(caFile: account.caFile), timeouts: limits.timeouts(),
            clock: context.program.clock)
        try? SyncedPreferencesStore.carryOver(in: sync.store)
        return sync
    }

    /// The passphrase: `SHELF_PASSPHRASE_FILE`, a systemd credential, or the prompt
    /// (asked twice when `confirming`, so a typo cannot lock the reader out).
    /// - Parameters:
    ///   - environment: where to look for a file or credential; the context's own by default.
    ///   - new: a new passphrase, held to `PassphraseRule` (`NewPassphraseOptions`).
    static func passphrase(
        _ context: CommandContext, from environment: [String: String]? = nil, prompt: String, confirming: Bool = false,
        new: NewPassphraseOptions? = nil
    ) throws -> Passphrase {
        let passphrase = try givenPassphrase(context, from: environment, prompt: prompt, confirming: confirming)
        if let new { try new.check(passphrase, context) }
        return passphrase
    }

    private static func givenPassphrase(
        _ context: CommandContext, from environment: [String: String]?, prompt: String, confirming: Bool
    ) throws -> Passphrase {
        if let source = PassphraseSource.fromEnvironment(environment ?? context.environment) {
            return try asking { try source.read() }
        }
        // NB: read straight into secure memory (`Passphrase.reading`): no String holds it.
        let console = context.console
        let typed = context.output.terminal.stdinIsTerminal
            ? try asking { try Passphrase.reading { console.readSecretBytes("\(prompt): ", $0) } } : nil
        guard let typed else {
            throw CommandFailure(.configuration, """
                no passphrase: set SHELF_PASSPHRASE_FILE (mode 600), use a systemd credential (shelf-passphrase), \
                or run on a terminal to be asked
                """)
        }
        if confirming {
            let again = try asking { try Passphrase.reading { console.readSecretBytes("Again, to be sure: ", $0) } }
            guard let again, again.hasSameBytes(as: typed) else {
                throw CommandFailure(.dataError, "the two passphrases differ; nothing was changed")
            }
        }
        return typed
    }

    /// The shape of `enable`, `join` and `rotate`: the account, its passphrase, the use
    /// case, and its confirmation.
    /// - Parameter work: the use case; returns what it queued and what was wrong with the
    ///   keyring's entries without stopping it (said as warnings).
    @MainActor
    static func changing(
        _ context: CommandContext, _ action: EncryptionChangeScreen.Action, prompt: String, confirming: Bool = false,
        new: NewPassphraseOptions? = nil, _ work: (AccountEncryption, Passphrase) async throws -> AccountEncryption.Change
    ) async throws -> ExitCode {
        let sync = try accountSync(context)
        try sync.requireCredentials()
        let passphrase = try passphrase(context, prompt: "\(prompt) \(sync.account.name)", confirming: confirming, new: new)
        let change = try await asking { try await work(sync.encryption, passphrase) }
        warn(change.problems, context)
        try context.output.confirm(EncryptionChangeScreen(action, account: sync.account.name.rawValue, queued: change.queued))
        return .success
    }

    /// The keyring's damaged or extra entries, each as a warning.
    static func warn(_ problems: [KeyringProblem], _ context: CommandContext) {
        for problem in problems { context.output.warn(problem.description) }
    }

    /// Runs a step, its failures as exit statuses.
    static func asking<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch {
            throw failure(error)
        }
    }

    /// Runs a use case that talks to the server, its failures as exit statuses.
    @MainActor
    static func asking<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch {
            throw failure(error)
        }
    }

    /// An encryption use case's failure as the command's.
    private static func failure(_ error: any Error) -> any Error {
        switch error {
        case let error as EncryptionError:
            switch error {
            case .wrongPassphrase: return CommandFailure(.noPermission, "wrong passphrase: it does not open the account's key; nothing was changed")
            case .keyFile, .passphraseSource, .emptyPassphrase, .passphraseTooLong: return CommandFailure(.configuration, "\(error)")
            default: return CommandFailure(.dataError, "\(error)")
            }
        case let error as AccountEncryptionError:
            switch error {
            case .alreadyEncrypted, .notEncrypted, .legacyKeyring: return CommandFailure(.failure, error.description)
            case .locked: return CommandFailure(.configuration, error.description)
            case .syncRunning: return CommandFailure(.temporaryFailure, error.description)
            }
        case let error as APIError:
            if case .unauthorized = error { return CommandFailure(.noPermission, error.description) }
            return CommandFailure(FailureClass(error).isTemporary ? .temporaryFailure : .unavailable, error.description)
        default:
            return error
        }
    }
}

// MARK: - enable

extension EncryptionCommand {
    struct Enable: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "enable", abstract: "Turn encryption on: every record goes up again sealed with the next sync.",
            examples: [Example("With the passphrase in a file", "SHELF_PASSPHRASE_FILE=~/.shelf-passphrase shelf encryption enable && shelf sync")])

        @OptionGroup
        var new = NewPassphraseOptions()

        func run(_ context: CommandContext) async throws -> ExitCode {
            try await EncryptionCommand.changing(context, .enabled, prompt: "New passphrase for account", confirming: true, new: new) {
                try await $0.enable(passphrase: $1)
            }
        }
    }
}

// MARK: - join

extension EncryptionCommand {
    struct Join: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "join", abstract: "Join an account encrypted on another device (asks for its passphrase).",
            examples: [Example("Join, then read the library here", "shelf encryption join && shelf sync")])

        func run(_ context: CommandContext) async throws -> ExitCode {
            try await EncryptionCommand.changing(context, .joined, prompt: "Passphrase of account") {
                try await $0.join(passphrase: $1)
            }
        }
    }
}

// MARK: - status

extension EncryptionCommand {
    struct Status: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "status", abstract: "Show whether the account is encrypted, its key, and what is not sealed yet.",
            examples: [Example("For a script", "shelf --json encryption status")])

        func run(_ context: CommandContext) async throws -> ExitCode {
            let sync = try EncryptionCommand.accountSync(context)
            let status = try EncryptionCommand.asking { try sync.encryption.status() }
            try context.output.show(EncryptionStatusScreen(account: sync.account.name.rawValue, status))
            return .success
        }
    }
}

// MARK: - change-passphrase

extension EncryptionCommand {
    struct ChangePassphrase: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "change-passphrase", abstract: "Wrap the key under a new passphrase; no record is sealed again.",
            discussion: "The current passphrase comes as for every encryption command; the new one from SHELF_NEW_PASSPHRASE_FILE or a prompt.",
            examples: [Example(
                "Both from files", "SHELF_PASSPHRASE_FILE=~/.old SHELF_NEW_PASSPHRASE_FILE=~/.new shelf encryption change-passphrase")])

        @OptionGroup
        var newPassphrase = NewPassphraseOptions()

        func run(_ context: CommandContext) async throws -> ExitCode {
            let sync = try EncryptionCommand.accountSync(context)
            try sync.requireCredentials()
            let old = try EncryptionCommand.passphrase(context, prompt: "Current passphrase of account \(sync.account.name)")
            // NB: the new one from its own file, or asked for: never the current one's source again.
            var forNew = context.environment
            forNew["SHELF_PASSPHRASE_FILE"] = context.environment["SHELF_NEW_PASSPHRASE_FILE"]
            forNew["CREDENTIALS_DIRECTORY"] = nil
            let new = try EncryptionCommand.passphrase(
                context, from: forNew, prompt: "New passphrase of account \(sync.account.name)", confirming: true, new: newPassphrase)
            let change = try await EncryptionCommand.asking { try await sync.encryption.changePassphrase(from: old, to: new) }
            EncryptionCommand.warn(change.problems, context)
            try context.output.confirm(EncryptionChangeScreen(.passphraseChanged, account: sync.account.name.rawValue))
            return .success
        }
    }
}

// MARK: - rotate

extension EncryptionCommand {
    struct Rotate: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "rotate", abstract: "Make a new key and seal every record again with it (asks for the passphrase).",
            examples: [Example("Rotate and send everything sealed anew", "shelf encryption rotate && shelf sync")])

        func run(_ context: CommandContext) async throws -> ExitCode {
            try await EncryptionCommand.changing(context, .rotated, prompt: "Passphrase of account") {
                try await $0.rotate(passphrase: $1)
            }
        }
    }
}

// MARK: - lock

extension EncryptionCommand {
    struct Lock: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "lock", abstract: "Remove the key from this device; syncs leave the account's records alone until 'join'.",
            examples: [Example("Before handing the machine on", "shelf encryption lock")])

        func run(_ context: CommandContext) async throws -> ExitCode {
            let sync = try EncryptionCommand.accountSync(context)
            let removed = try EncryptionCommand.asking { try sync.encryption.lock() }
            try context.output.confirm(EncryptionChangeScreen(.locked, account: sync.account.name.rawValue, removedKey: removed))
            return .success
        }
    }
}

// MARK: - put-back

extension EncryptionCommand {
    struct PutBack: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "put-back", abstract: "Upload again what the server deleted without you, then sync.",
            discussion: """
            On an encrypted account your deletions are sealed, so a device tells them from a
            deletion the server made alone: such a record is kept here, and the sync says so.
            This queues every one of them to go back up as the version kept here, and syncs
            (with --offline it only queues). 'shelf encryption status' counts them. A keyring
            the server replaced with one that lists none of this device's keys is put back too.
            """,
            examples: [Example("After a sync said the server deleted records without you", "shelf encryption put-back")])

        func run(_ context: CommandContext) async throws -> ExitCode {
            let sync = try EncryptionCommand.accountSync(context)
            let queued = try EncryptionCommand.asking { try sync.encryption.putBack() }
            try context.output.confirm(EncryptionChangeScreen(.putBack, account: sync.account.name.rawValue, queued: queued))
            guard !context.isOffline else { return .success }
            if try await EncryptionCommand.asking({ try await sync.encryption.putBackKeyring() }) {
                context.output.note("put back the keyring this device verified over the one the server showed")
            } else if queued == 0 {
                return .success
            }
            return try await SyncCommand().run(context)
        }
    }
}

// MARK: - NewPassphraseOptions

/// `--weak-passphrase-ok`, for the commands that set a new passphrase (`encryption
/// enable`, `change-passphrase`, `account add --encrypted`), and the check it relaxes.
struct NewPassphraseOptions: ParsableArguments {
    @Flag(help: "Use a new passphrase weaker than Shelf's rule (\(PassphraseRule.statement)) anyway.")
    var weakPassphraseOk = false

    /// Refuses a passphrase below `PassphraseRule` (65) unless `--weak-passphrase-ok`; says
    /// why on a terminal either way.
    func check(_ passphrase: Passphrase, _ context: CommandContext) throws {
        let shortcomings = passphrase.shortcomings
        guard !shortcomings.isEmpty else { return }
        let why = "\(shortcomings.joined(separator: " and ")); Shelf's rule is \(PassphraseRule.statement)"
        if context.output.terminal.stderrIsTerminal {
            context.output.warn("this passphrase is weak: \(why). Whoever copies the wrapped key from the server can guess it offline.")
        }
        guard weakPassphraseOk else {
            throw CommandFailure(.dataError, """
                the new passphrase is too weak: \(why); choose a longer one (four words will do), \
                or give --weak-passphrase-ok to use it anyway; nothing was changed
                """)
        }
    }
}

