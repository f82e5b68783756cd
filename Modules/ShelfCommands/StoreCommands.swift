import ArgumentParsing
import Domain
import Presentation
import Screens
import Storage
import Sync

// MARK: - Store care

// `shelf doctor`, `shelf backup FILE` and `shelf restore FILE` on the account's store
// (the local-only store when no account is configured).

struct DoctorCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "doctor", abstract: "Check the local store with SQLite's full integrity check and say what it found.",
        discussion: """
        Exits 0 when the store is healthy (or does not exist yet) and 74 when it is damaged,
        with what to do. The store is only read.
        """,
        examples: [Example("Check the current account's store", "shelf doctor"), Example("Check another account's", "shelf --account work doctor")])

    func run(_ context: CommandContext) async throws -> ExitCode {
        let model = try storeCare(context)
        await model.diagnose()
        let diagnosis = try loaded(model.state, failure: model.failure)
        try context.output.show(StoreDoctorScreen(diagnosis))
        return diagnosis.isHealthy ? .success : .ioError
    }
}

struct BackupCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "backup", abstract: "Write a consistent copy of the local store to FILE, even while a sync runs.",
        discussion: "FILE must not exist; the copy is private (mode 600) and checked before it gets its name.",
        examples: [Example("A dated copy of the store", "shelf backup ~/backups/shelf-2026-12-01.sqlite")])

    @Argument(help: "Where to write the copy (a new file).", completion: .file)
    var file: String

    func run(_ context: CommandContext) async throws -> ExitCode {
        let model = try storeCare(context)
        let summary = try outcome(await model.backup(to: context.program.absolutePath(file)), failure: model.failure)
        try context.output.confirm(StoreBackupScreen(summary))
        return .success
    }
}

struct RestoreCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "restore", abstract: "Check a backup and put it in place of the local store.",
        discussion: """
        The replaced store is kept beside it as <store>.replaced-<time>. Refused while a sync
        of the account runs, and for a backup that fails the check (nothing is changed then).
        """,
        examples: [Example("Put a backup back", "shelf restore ~/backups/shelf-2026-12-01.sqlite")])

    @Argument(help: "The backup to restore.", completion: .file)
    var file: String

    func run(_ context: CommandContext) async throws -> ExitCode {
        let model = try storeCare(context)
        let summary = try outcome(await model.restore(from: context.program.absolutePath(file)), failure: model.failure)
        try context.output.confirm(StoreRestoreScreen(summary))
        return .success
    }
}

/// The store's account by name only: checking or copying a store needs no password.
/// The view model every store care goes through, on the account's store.
@MainActor
private func storeCare(_ context: CommandContext) throws -> StoreCareViewModel<StoreCare> {
    StoreCareViewModel(service: StoreCare(maintenance: try storeMaintenance(context)))
}

@MainActor
private func storeMaintenance(_ context: CommandContext) throws -> StoreMaintenance {
    let paths = ShelfPaths(environment: context.environment)
    let store = AccountStore(paths: paths)
    let name: AccountName
    if let flag = context.global.account {
        name = try AccountName.checked(flag)
    } else if context.environment["SHELF_SERVER"] != nil {
        name = try AccountName.checked(context.environment["SHELF_ACCOUNT"] ?? AccountResolver.environmentAccountName)
    } else if let current = store.currentAccount(), store.exists(current) {
        name = current
    } else {
        name = .localOnly
    }
    context.output.note("store \(paths.storeFile(name).path)")
    return StoreMaintenance(account: name, paths: paths, clock: context.program.clock)
}
