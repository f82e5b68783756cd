import ArgumentParsing
import Domain
import Foundation
import Presentation
import Storage
import Sync

// MARK: - SyncCommands

/// `shelf sync` and `shelf status`.
@MainActor
enum SyncCommands {
    /// Runs the sync engine once under the account's run lock, built as the `shelf-sync`
    /// worker builds it (`AccountSync`): another run holding the lock (the cron worker,
    /// another `shelf sync`) is not an error, there is just nothing to do. Exits as the
    /// worker does (`RunOutcome.exitStatus`); 69 without a server.
    static func sync(_ context: CommandContext) async throws -> ExitCode {
        let options = try syncOptions(context.invocation)
        let paths = ShelfPaths(environment: context.environment)
        let selection = try AccountSession.resolve(
            accountFlag: context.invocation.option("account"), environment: context.environment, paths: paths)
        guard case .account(let account) = selection else {
            throw CommandFailure.noServer(paths.database(.localOnly).description)
        }
        if context.isOffline {
            throw CommandFailure(.temporaryFailure, "offline (--offline or SHELF_OFFLINE): not contacting the server; local changes stay queued")
        }
        context.output.note("account \(account)")
        let limits = try LimitOverrides(environment: context.environment)
        var limited = options
        limited.maximumRecordBytes = limits.maximumRecordBytes
        let sync = try AccountSync(account: account, paths: paths, options: limited, transport: limits.transport(caFile: account.caFile))

        let progress = SyncProgress(output: context.output)
        let (events, continuation) = AsyncStream<SyncEvent>.makeStream(bufferingPolicy: .unbounded)
        let run = Task {
            let report = await sync.runLocked { continuation.yield($0) }
            continuation.finish()
            return report
        }
        for await event in events { progress.handle(event) }
        progress.finish()
        let report = await run.value

        switch report.outcome {
        case .synced: try context.output.confirm(SyncRunScreen(report))
        case .needsAttention, .alreadyRunning: try context.output.show(SyncRunScreen(report))
        case .backoff, .temporaryFailure, .authenticationFailed, .localStoreFailure, .configurationError:
            try context.output.showFailure(SyncRunScreen(report))
        }
        return ExitCode(rawValue: report.outcome.exitStatus) ?? .software
    }

    static func status(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = SyncStatusModel(provider: session.repositories.syncStatus)
        await model.refresh()
        if case .localOnly = session.selection {
            context.output.warn("no server configured: local changes wait in \(session.store.location) until an account is added")
        }
        return try context.output.present(SyncStatusScreen(model, now: Date()), loaded: model.state, listsUnreadable: false)
    }

    /// How long `shelf sync` may take in all before it stops (exit 75); the next sync
    /// continues where it stopped. Five minutes: a first sync of a very large library
    /// on a slow link, not an endless wait on a server that stopped answering.
    static let syncBudget: Duration = .seconds(300)

    /// `--collection` and `--policy`; the parser has already refused other values.
    private static func syncOptions(_ invocation: Invocation) throws -> SyncOptions {
        var options = SyncOptions(ignoresBackoff: invocation.flag("ignore-backoff"), budget: syncBudget)
        if let name = invocation.option("collection") {
            guard let collection = CollectionName(rawValue: name) else {
                throw ParseError.invalidValue(option: "collection", value: name, allowed: CollectionName.allCases.map(\.rawValue))
            }
            options.collections = [collection]
        }
        if let raw = invocation.option("policy") {
            guard let policy = ConflictPolicy(rawValue: raw) else {
                throw ParseError.invalidValue(option: "policy", value: raw, allowed: ConflictPolicy.allCases.map(\.rawValue))
            }
            options.policy = policy
        }
        return options
    }
}
