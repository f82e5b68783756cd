import Domain
import Foundation
import Services
import Storage

// MARK: - AccountSync

/// Everything a run needs for one account, built the same way by both apps: the
/// account's store, an API client with its credentials, the engine, and the lock file.
public struct AccountSync: Sendable {
    public let account: ResolvedAccount
    public let store: ShelfStore
    public let engine: SyncEngine
    public let lockFile: URL
    /// When the store was last checked, and whether this run must check it first.
    public let healthGate: StoreHealthGate

    /// Opens the account's store and builds its engine.
    /// - Throws: `StorageError` when the store can't be opened (a newer schema, permissions…).
    /// - Parameter storeConfiguration: how the store is opened (`.reader` for the CLI).
    public init(
        account: ResolvedAccount, paths: ShelfPaths, options: SyncOptions = SyncOptions(),
        transport: any HTTPTransport = CurlTransport.shared, timeouts: Timeouts = .default,
        storeConfiguration: ShelfStore.Configuration = ShelfStore.Configuration()
    ) throws {
        self.account = account
        store = try ShelfStore(location: paths.database(account.name), configuration: storeConfiguration)
        let client = APIClient(
            configuration: .init(
                baseURL: account.server,
                credentials: .init(user: account.credentials.user, password: account.credentials.password),
                timeouts: timeouts),
            transport: transport)
        engine = SyncEngine(account: account.name.rawValue, store: store, client: client, options: options)
        lockFile = paths.syncLock(account.name)
        healthGate = StoreHealthGate(mark: paths.integrityMark(account.name))
    }

    /// Runs once under the account's lock; another holder means `.alreadyRunning`
    /// without touching the store or the network. Before the engine runs, the store is
    /// checked when `healthGate` says so (after an unfinished run, at least daily): a
    /// damaged store ends the run as `.localStoreFailure` without a request, and the
    /// report's message names the file and what to do.
    public func runLocked(onEvent: @escaping @Sendable (SyncEvent) -> Void = { _ in }) async -> RunReport {
        let lock: RunLock?
        do {
            lock = try RunLock.acquire(at: lockFile)
        } catch {
            return RunReport(account: account.name.rawValue, outcome: .localStoreFailure, message: "\(error)", startedAt: Date())
        }
        guard let lock else {
            let holder = RunLock.holder(of: lockFile).map { " (pid \($0))" } ?? ""
            return RunReport(
                account: account.name.rawValue, outcome: .alreadyRunning,
                message: "another sync of account '\(account.name)' is running\(holder); skipped", startedAt: Date())
        }
        defer { lock.release() }
        do {
            try healthGate.checkIfDue(store, previousRunUnfinished: lock.previousRunUnfinished)
            lock.acknowledgeUnfinishedRun()
        } catch {
            let report = RunReport(account: account.name.rawValue, outcome: .localStoreFailure, message: "\(error)", startedAt: Date())
            onEvent(.runFinished(report))
            return report
        }
        let report = await engine.run(onEvent: onEvent)
        if report.outcome == .localStoreFailure {
            // Whatever failed, the next run checks the store before trusting it again.
            unlink(healthGate.mark.path)
        }
        return report
    }

    /// The repositories' refresh port over this account's engine and lock.
    public var refresher: SyncRefresher { SyncRefresher(engine: engine, lockFile: lockFile) }
}
