import Domain
import Foundation
import Repositories
import Services
import Storage
import Sync

// MARK: - AccountSession

/// One account's dependencies for one command: its store, its repositories behind the
/// freshness policy (refreshed by the account's sync engine, as the `shelf-sync`
/// worker builds it: `AccountSync`), and the ports the view models are built on.
final class AccountSession: Sendable {
    let selection: AccountSelection
    let paths: ShelfPaths
    let store: ShelfStore
    let repositories: AccountRepositories
    /// Refreshes that failed while this command read.
    let refreshLog = RefreshLog()

    /// Resolves the account and opens its store.
    /// - Throws: `AccountConfigError` (78) for an unknown or unusable account,
    ///   `StorageError` (74) when the store cannot be opened.
    init(accountFlag: String?, environment: [String: String], output: Output, offline: Bool = false, clock: SyncClock = .live) throws {
        paths = ShelfPaths(environment: environment)
        selection = try Self.resolve(accountFlag: accountFlag, environment: environment, paths: paths)

        let refresher: any CollectionRefreshing
        switch selection {
        case .account(let account):
            // NB: a read asks the server once and gives up sooner than a sync run:
            // retries belong to `shelf sync`.
            let limits = try LimitOverrides(environment: environment)
            let sync = try AccountSync(
                account: account, paths: paths, options: SyncOptions(retry: .none, maximumRecordBytes: limits.maximumRecordBytes),
                transport: limits.transport(caFile: account.caFile), timeouts: limits.timeouts(Self.readTimeouts), storeConfiguration: .reader,
                readsPassword: !offline, clock: clock)
            try? SyncedPreferencesStore.carryOver(in: sync.store)
            store = sync.store
            if offline {
                refresher = LocalOnlyRefresher()
                output.note("account \(account); store \(store.location); offline: the server is not contacted")
            } else if let problem = sync.credentialProblem {
                // NB: no budget to wait on: every refresh fails at once, saying why, and
                // the read shows the local data.
                refresher = sync.refresher()
                output.note("account \(account); store \(store.location); the server is not asked: \(problem)")
            } else {
                let waiting = sync.refresher { holder in
                    output.note("waiting for the sync in progress\(holder.map { " (pid \($0))" } ?? "") to finish")
                }
                refresher = BudgetedRefresher(waiting, budget: ReadBudget(limits.readWait))
                output.note("account \(account); store \(store.location)")
            }
        case .localOnly:
            var configuration = ShelfStore.Configuration.reader
            configuration.clock = clock
            store = try ShelfStore(account: .localOnly, paths: paths, configuration: configuration)
            refresher = LocalOnlyRefresher()
            output.destination.markLocalOnly()
            output.note("no account configured: local-only store \(store.location)")
        }
        // NB: no stale-while-revalidate here: a stale read waits for its refresh within
        // the read budget (`SHELF_READ_SECONDS`, a second unless set) and prints the refreshed answer when it arrives in
        // time, the local one otherwise — never an old answer followed by a wait.
        let configuration = RepositoryConfiguration(
            readerPolicy: FreshnessPolicy(maxAge: FreshnessPolicy.readerData.maxAge),
            catalogPolicy: FreshnessPolicy(maxAge: FreshnessPolicy.catalog.maxAge), clock: clock,
            onEvent: { event in Self.describe(event, to: output) })
        repositories = AccountRepositories(
            store: store, refresher: ReportedRefresher(inner: refresher, log: refreshLog, note: { output.note($0) }),
            configuration: configuration)
    }

    /// The account a command works on: `--account` > environment > current account >
    /// the local-only store — the rule the `shelf-sync` worker follows too, so both
    /// always open the same store.
    static func resolve(accountFlag: String?, environment: [String: String], paths: ShelfPaths) throws -> AccountSelection {
        try AccountResolver.resolve(flag: accountFlag, environment: environment, store: AccountStore(paths: paths))
    }

    var preferences: any PreferencesStore { repositories.preferences }
    /// The ports of the decisions a sync leaves to the reader (conflicts, refused and
    /// waiting changes).
    var decisions: StoreDecisions { StoreDecisions(store: store) }
    /// The port imports are written through.
    var importer: AccountImport {
        let keyFile: URL? = if case .account(let account) = selection { paths.keyFile(account.name) } else { nil }
        return AccountImport(store: store, repositories: repositories, keyFile: keyFile)
    }

    /// Waits for refreshes still running behind a read (none outlive the read budget),
    /// then warns about failed ones — saying so when a collection has nothing local yet.
    func finish(_ output: Output, warn: Bool) async {
        await repositories.waitForRefreshes()
        guard warn else { return }
        let neverSynced = Set(refreshLog.collections.filter(repositories.hasNothingLocal))
        for warning in refreshLog.warnings(neverSynced: neverSynced) { output.warn(warning) }
        for warning in output.unreadable.warnings { output.warn(warning) }
    }

    // MARK: Server

    /// A read gives up on an unreachable server sooner than a sync run does.
    static let readTimeouts = Timeouts(connect: .seconds(5), request: .seconds(30))

    private static func describe(_ event: RepositoryEvent, to output: Output) {
        switch event {
        case .refreshStarted(let collection, let background):
            output.note("refreshing \(collection.rawValue) from the server\(background ? " (behind the answer)" : "")")
        case .refreshJoined(let collection):
            output.note("waiting for the refresh of \(collection.rawValue) in flight")
        case .refreshFinished(let collection, let succeeded):
            // NB: failures are noted by `ReportedRefresher`, which the repository sees succeed.
            if !succeeded { output.note("refresh of \(collection.rawValue) cancelled") }
        case .unreadableRecords(_, let records):
            output.unreadable.record(records)
        }
    }
}
