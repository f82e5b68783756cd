import Domain
import Foundation
import Presentation
import Repositories
import Services
import Storage
import Sync

// MARK: - AccountSession

/// One account's dependencies for one command: its store, its server (when it has
/// one), its repositories behind the freshness policy, and the ports the view models
/// are built on.
///
/// The account is the one `AccountResolver` picks — `--account` > environment >
/// current account > the local-only store — the same rule the `shelf-sync` worker uses,
/// so both always open the same store.
final class AccountSession: Sendable {
    let selection: AccountSelection
    let paths: ShelfPaths
    let store: ShelfStore
    let repositories: AccountRepositories
    /// The server's client; nil for the local-only store.
    let client: APIClient?
    /// Refreshes that failed while this command read.
    let refreshLog = RefreshLog()

    /// Resolves the account and opens its store.
    /// - Throws: `AccountConfigError` (78) for an unknown or unusable account,
    ///   `StorageError` (74) when the store cannot be opened.
    init(accountFlag: String?, environment: [String: String], output: Output) throws {
        paths = ShelfPaths(environment: environment)
        selection = try AccountResolver.resolve(flag: accountFlag, environment: environment, store: AccountStore(paths: paths))
        store = try ShelfStore(account: selection.name, environment: environment)

        let refresher: any CollectionRefreshing
        switch selection {
        case .account(let account):
            output.note("account \(account); store \(store.location)")
            let client = Self.client(for: account, timeouts: Self.readTimeouts)
            self.client = client
            // NB: a read waits for the server only once: retries belong to `shelf sync`.
            let engine = SyncEngine(account: account.name.rawValue, store: store, client: client, options: SyncOptions(retry: .none))
            refresher = SyncRefresher(engine: engine, lockFile: paths.syncLock(account.name))
        case .localOnly:
            output.note("no account configured: local-only store \(store.location)")
            client = nil
            refresher = LocalOnlyRefresher()
        }
        let configuration = RepositoryConfiguration(onEvent: { event in Self.describe(event, to: output) })
        repositories = AccountRepositories(
            store: store, refresher: ReportedRefresher(inner: refresher, log: refreshLog), configuration: configuration)
    }

    /// The Domain ports the view models take.
    var dependencies: AccountDependencies {
        AccountDependencies(
            books: repositories.books, notes: repositories.notes, tasks: repositories.tasks,
            catalog: repositories.catalog, cart: repositories.cart,
            syncStatus: repositories.syncStatus, preferences: repositories.preferences)
    }

    var preferences: any PreferencesStore { repositories.preferences }

    /// The account with a server, or the "no server" failure (69) for the local-only store.
    func requireServer() throws -> ResolvedAccount {
        guard case .account(let account) = selection else { throw CommandFailure.noServer(store.location.description) }
        return account
    }

    /// Waits for refreshes still running behind a read, then warns about failed ones.
    func finish(_ output: Output, warn: Bool) async {
        await repositories.waitForRefreshes()
        guard warn else { return }
        for warning in refreshLog.warnings { output.warn(warning) }
    }

    // MARK: Server

    /// A read gives up on an unreachable server sooner than a sync run does.
    static let readTimeouts = Timeouts(connect: .seconds(5), request: .seconds(30))

    static func client(for account: ResolvedAccount, timeouts: Timeouts = .default) -> APIClient {
        APIClient(
            configuration: APIClient.Configuration(
                baseURL: account.server,
                credentials: APIClient.Credentials(user: account.credentials.user, password: account.credentials.password),
                timeouts: timeouts),
            transport: CurlTransport.shared)
    }

    private static func describe(_ event: RepositoryEvent, to output: Output) {
        switch event {
        case .refreshStarted(let collection, let background):
            output.note("refreshing \(collection.rawValue) from the server\(background ? " (behind the answer)" : "")")
        case .refreshJoined(let collection):
            output.note("waiting for the refresh of \(collection.rawValue) in flight")
        case .refreshFinished(let collection, let succeeded):
            output.note("refresh of \(collection.rawValue) \(succeeded ? "finished" : "failed")")
        }
    }
}
