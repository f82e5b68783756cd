import ArgumentParsing
import Domain
import Foundation
import Presentation
import Repositories
import Screens
import Storage
import Sync

// MARK: - shelf sync

/// Runs the sync engine once under the account's run lock, built as the `shelf-sync`
/// worker builds it (`AccountSync`): another run holding the lock (the cron worker,
/// another `shelf sync`) means this one did nothing, which it says, exit 75. Exits as the
/// worker does (`RunOutcome.exitStatus`); 69 without a server.
struct SyncCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "sync", abstract: "Send local changes to the server and fetch its changes now.",
        discussion: """
        What each collection pulled and pushed goes to standard output; the progress bar to
        standard error when it is a terminal (--progress: one line per step anywhere). A run
        that did not sync everything ends with one 'Error:' line and its status: 1 conflicts
        or refused changes wait, 75 try again (the network, the server, its backoff, or
        another sync of the account running: this one did nothing), 77 the password was
        refused, 78 the account cannot be used (a missing or loose password file: the line
        says how to mend it).
        """,
        examples: [
            Example("Sync everything", "shelf sync"),
            Example("Only the books; the server wins fields changed on both sides", "shelf sync --collection books --policy server-wins"),
        ])

    @Option(value: "name", help: "Only this collection.")
    var collection: CollectionName?
    @Option(value: "policy", help: "How to settle a field changed on both sides (default manual).")
    var policy: ConflictPolicy?
    @Flag(help: "Sync even though the server asked to wait (Backoff / Retry-After).")
    var ignoreBackoff = false
    @Flag(help: "Also compare every collection with the server, by counts of ranges of versions, and pull what differs (done daily anyway).")
    var reconcile = false

    /// How long `shelf sync` may take in all before it stops (exit 75); the next sync
    /// continues where it stopped. Five minutes: a first sync of a very large library
    /// on a slow link, not an endless wait on a server that stopped answering.
    static let syncBudget: Duration = .seconds(300)

    func run(_ context: CommandContext) async throws -> ExitCode {
        var options = SyncOptions(ignoresBackoff: ignoreBackoff, budget: Self.syncBudget)
        options.reconcilesNow = reconcile
        if let collection { options.collections = [collection] }
        if let policy { options.policy = policy }
        let paths = ShelfPaths(environment: context.environment)
        let selection = try AccountSession.resolve(accountFlag: context.global.account, environment: context.environment, paths: paths)
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
        let sync = try AccountSync(
            account: account, paths: paths, options: limited, transport: limits.transport(caFile: account.caFile),
            timeouts: limits.timeouts(), clock: context.program.clock)
        try? SyncedPreferencesStore.carryOver(in: sync.store)

        let model = SyncRunViewModel(service: AccountSyncRun(sync: sync))
        let progress = SyncProgress(output: context.output)
        let (events, continuation) = AsyncStream<SyncEvent>.makeStream(bufferingPolicy: .unbounded)
        let run = Task {
            let report = await model.sync { continuation.yield($0) }
            continuation.finish()
            return report
        }
        for await event in events { progress.handle(event) }
        progress.finish()
        let report = await run.value

        // NB: what each collection did is the result (standard output); a run that did not
        // sync everything ends in one `Error:` line on standard error, with its status.
        let screen = SyncRunScreen(report)
        guard let failure = screen.failure else {
            try context.output.confirm(screen)
            return report.outcome.exitStatus
        }
        let results = screen.withoutSummary
        if context.output.isJSON || results.didSomething { try context.output.show(results) }
        throw CommandFailure(report.outcome.exitStatus, failure)
    }
}

// MARK: - shelf status

struct StatusCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "status", abstract: "Show the last sync, pending changes, conflicts and failed changes.",
        discussion: """
        The last sync is when the last run that pulled every collection and sent every change
        it could started: a failed push, 'sync --collection' or a read's refresh does not move
        it. The last error says each cause once, with the collections it hit.
        """,
        examples: [Example("What waits to be sent, and what needs a decision", "shelf status")])

    func run(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = SyncStatusViewModel(provider: session.repositories.syncStatus)
        await model.refresh()
        if case .localOnly = session.selection {
            context.output.warn("no server configured: local changes wait in \(session.store.location) until an account is added")
        }
        return try context.output.present(SyncStatusScreen(model, now: context.program.clock.now()), loaded: model.state, listsUnreadable: false)
    }
}

// MARK: - Values on the command line

extension CollectionName: ExpressibleByArgument {}
extension ConflictPolicy: ExpressibleByArgument {}
