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
    /// Runs the sync engine once, under the account's run lock: another run holding it
    /// (the cron worker, another `shelf sync`) is not an error, there is just nothing
    /// to do. Exits as the worker does: 0 synced, 1 conflicts or failed changes, 75
    /// temporary failure or backoff, 77 credentials refused, 74 store, 69 no server.
    static func sync(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let account = try session.requireServer()
        let options = try syncOptions(context.invocation)

        let lockFile = session.paths.syncLock(account.name)
        guard let lock = try RunLock.acquire(at: lockFile) else {
            let holder = RunLock.holder(of: lockFile).map { " (pid \($0))" } ?? ""
            let report = RunReport(
                account: account.name.rawValue, outcome: .alreadyRunning,
                message: "Another sync of account \(account.name) is running\(holder); nothing to do.", startedAt: Date())
            try context.output.show(SyncRunScreen(report))
            return .success
        }
        defer { lock.release() }

        let engine = SyncEngine(
            account: account.name.rawValue, store: session.store, client: AccountSession.client(for: account), options: options)
        let progress = SyncProgress(output: context.output)
        var finished: RunReport?
        for await event in engine.events() {
            progress.handle(event)
            if case .runFinished(let report) = event { finished = report }
        }
        progress.finish()
        guard let report = finished else { throw CommandFailure(.software, "the sync run ended without a report") }

        let status = ExitCode.forOutcome(report.outcome)
        switch report.outcome {
        case .synced: try context.output.confirm(SyncRunScreen(report))
        case .needsAttention, .alreadyRunning: try context.output.show(SyncRunScreen(report))
        default: try context.output.showFailure(SyncRunScreen(report))
        }
        return status
    }

    static func status(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = SyncStatusModel(provider: session.repositories.syncStatus)
        await model.refresh()
        if case .localOnly = session.selection {
            context.output.warn("no server configured: local changes wait in \(session.store.location) until an account is added")
        }
        return try context.output.present(SyncStatusScreen(model, now: Date()), loaded: model.state)
    }

    /// `--collection` and `--policy`; the parser has already refused other values.
    private static func syncOptions(_ invocation: Invocation) throws -> SyncOptions {
        var options = SyncOptions()
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
