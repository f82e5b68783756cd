import ArgumentParsing
import Foundation
import Presentation
import Storage
import Sync

// MARK: - StoreCommands

/// `shelf doctor`, `shelf backup FILE` and `shelf restore FILE` on the account's store
/// (the local-only store when no account is configured).
@MainActor
enum StoreCommands {
    static func doctor(_ context: CommandContext) async throws -> ExitCode {
        let diagnosis = try maintenance(context).diagnose()
        try context.output.show(StoreDoctorScreen(diagnosis))
        return diagnosis.isHealthy ? .success : .ioError
    }

    static func backup(_ context: CommandContext) async throws -> ExitCode {
        let target = URL(fileURLWithPath: try context.argument("file"))
        let summary = try maintenance(context).backup(to: target)
        try context.output.confirm(StoreBackupScreen(summary))
        return .success
    }

    static func restore(_ context: CommandContext) async throws -> ExitCode {
        let source = URL(fileURLWithPath: try context.argument("file"))
        let summary = try maintenance(context).restore(from: source)
        try context.output.confirm(StoreRestoreScreen(summary))
        return .success
    }

    /// The store's account by name only: checking or copying a store needs no password.
    private static func maintenance(_ context: CommandContext) throws -> StoreMaintenance {
        let paths = ShelfPaths(environment: context.environment)
        let store = AccountStore(paths: paths)
        let name: AccountName
        if let flag = context.invocation.option("account") {
            name = try AccountName.checked(flag)
        } else if context.environment["SHELF_SERVER"] != nil {
            name = try AccountName.checked(context.environment["SHELF_ACCOUNT"] ?? AccountResolver.environmentAccountName)
        } else if let current = store.currentAccount(), store.exists(current) {
            name = current
        } else {
            name = .localOnly
        }
        context.output.note("store \(paths.dataDirectory.appendingPathComponent("\(name.rawValue).sqlite").path)")
        return StoreMaintenance(account: name, paths: paths)
    }
}
