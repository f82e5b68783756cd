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
    /// The account's keyring file, when it is encrypted (`ShelfPaths.keyFile`).
    public let keyFile: URL
    /// When the store was last checked, and whether this run must check it first.
    public let healthGate: StoreHealthGate
    /// Where the server's capabilities are kept between runs.
    public let capabilitiesCache: ServerCapabilitiesCache
    /// Why this account cannot talk to its server now (its password cannot be read), or
    /// nil. The store opens all the same: local work never needs the password; a run
    /// ends as a configuration error naming the problem, and a refresh fails with it.
    public let credentialProblem: AccountConfigError?
    /// The clock of the run: the store's stamps, the engine's waits and budget, the
    /// health gate's age, the reports' start.
    public let clock: SyncClock

    /// Opens the account's store and builds its engine. Whoever builds one hands this
    /// device's older favorites and settings over to the synced `preferences` record
    /// before the first run (Repositories' `SyncedPreferencesStore.carryOver`).
    /// - Throws: `StorageError` when the store can't be opened (a newer schema, permissions…).
    /// - Parameters:
    ///   - transport: nil for the process's shared libcurl transport — one that trusts the
    ///     account's private CA (`caFile`) when it names one.
    ///   - storeConfiguration: how the store is opened (`.reader` for the CLI).
    ///   - readsPassword: false when nothing will be asked of the server (`--offline`):
    ///     the password is then not even read.
    ///   - clock: the program's clock (`ProgramContext.clock`); it replaces
    ///     `storeConfiguration`'s, so the store and the engine read one clock.
    public init(
        account: ResolvedAccount, paths: ShelfPaths, options: SyncOptions = SyncOptions(),
        transport: (any HTTPTransport)? = nil, timeouts: Timeouts = .default,
        storeConfiguration: ShelfStore.Configuration = ShelfStore.Configuration(), readsPassword: Bool = true,
        clock: SyncClock = .live
    ) throws {
        self.account = account
        self.clock = clock
        var storeConfiguration = storeConfiguration
        storeConfiguration.clock = clock
        store = try ShelfStore(account: account.name, paths: paths, configuration: storeConfiguration)
        var credentials: APIClient.Credentials?
        var problem: AccountConfigError?
        if readsPassword {
            do {
                let read = try account.credentials()
                credentials = APIClient.Credentials(user: read.user, password: read.password)
            } catch {
                problem = error
            }
        }
        credentialProblem = problem
        let client = APIClient(
            configuration: .init(baseURL: account.server, credentials: credentials, timeouts: timeouts),
            transport: transport ?? CurlTransport.trusting(caFile: account.caFile))
        var options = options
        keyFile = options.keyFile ?? paths.keyFile(account.name)
        options.keyFile = keyFile
        engine = SyncEngine(account: account.name.rawValue, store: store, client: client, options: options, clock: clock)
        lockFile = paths.syncLock(account.name)
        healthGate = StoreHealthGate(mark: paths.integrityMark(account.name), clock: clock)
        capabilitiesCache = ServerCapabilitiesCache(paths: paths)
    }

    /// Runs once under the account's lock; another holder means `.alreadyRunning`
    /// (exit 75) without touching the network or writing to the store.
    ///
    /// Before anything is sent, the store is checked when `healthGate` says so (after an
    /// unfinished run, at least daily): a damaged store ends the run as
    /// `.localStoreFailure` without a request, and the report's message names the file
    /// and what to do.
    ///
    /// The run is shaped by the server's capabilities — batch size, page size,
    /// read-only mode — as `shelf account add` read and cached them (the defaults when
    /// none are cached: an account from the environment). When a run shows they changed
    /// or were wrong (a batch refused as too large, a write refused as on a read-only
    /// server), they are read from `GET /v1/`, cached, and the run is made once more.
    /// While they say read-only, they are read again at the start of every run.
    public func runLocked(onEvent: @escaping @Sendable (SyncEvent) -> Void = { _ in }) async -> RunReport {
        if let credentialProblem {
            let report = RunReport(
                account: account.name.rawValue, outcome: .configurationError,
                message: "cannot sync without the account's password: \(credentialProblem)", startedAt: clock.now())
            onEvent(.runFinished(report))
            return report
        }
        let lock: RunLock?
        do {
            lock = try RunLock.acquire(at: lockFile)
        } catch {
            return RunReport(account: account.name.rawValue, outcome: .localStoreFailure, message: "\(error)", startedAt: clock.now())
        }
        guard let lock else {
            let holder = RunLock.holder(of: lockFile).map { " (pid \($0))" } ?? ""
            var report = RunReport(
                account: account.name.rawValue, outcome: .alreadyRunning,
                message: "another sync of account '\(account.name)' is running\(holder); this one did nothing (try again when it ends)",
                startedAt: clock.now())
            report.lastSuccess = try? store.read { reader in try reader.lastCompleteSync() }
            return report
        }
        defer { lock.release() }
        do {
            try healthGate.checkIfDue(store, previousRunUnfinished: lock.previousRunUnfinished)
            lock.acknowledgeUnfinishedRun()
        } catch {
            let report = RunReport(account: account.name.rawValue, outcome: .localStoreFailure, message: "\(error)", startedAt: clock.now())
            onEvent(.runFinished(report))
            return report
        }
        var report = await runShapedByCapabilities(onEvent: onEvent)
        report.lastSuccess = try? store.read { reader in try reader.lastCompleteSync() }
        if report.outcome == .localStoreFailure {
            // Whatever failed, the next run checks the store before trusting it again.
            unlink(healthGate.mark.path)
        }
        return report
    }

    /// The run under the lock, shaped by what is known of the server's capabilities and
    /// made once more when it shows they changed.
    private func runShapedByCapabilities(onEvent: @escaping @Sendable (SyncEvent) -> Void) async -> RunReport {
        // NB: `SyncOptions.budget` bounds everything done under the lock — capability
        // reads and a run made again included — not each engine run on its own.
        let budget = RunBudget(engine.options.budget, clock: clock)

        // Requests made outside the returned run (GET /v1/, a run made again): counted in.
        var spent = 0
        var capabilities = capabilitiesCache.load(account.name, server: account.server)
        if capabilities?.readOnly == true {
            // No write is tried against a read-only server, so no answer would say it
            // accepts writes again: ask, once per run, while local changes wait.
            spent += 1
            capabilities = await fetchCapabilities(within: budget) ?? capabilities
        }
        if let refusal = refusal(capabilities, spent: spent) { return refusal }
        var report = await engine(for: capabilities, within: budget).run(onEvent: onEvent)
        if report.capabilitiesChanged {
            capabilitiesCache.forget(account.name)
            spent += 1
            capabilities = await fetchCapabilities(within: budget)
            if let refusal = refusal(capabilities, spent: spent + report.requests) { return refusal }
            if capabilities != nil {
                spent += report.requests
                report = await engine(for: capabilities, within: budget).run(onEvent: onEvent)
            }
        }
        if capabilities == nil, !report.unavailable.isEmpty {
            // Refused collections and nothing known of the server (an account from the
            // environment): read what it offers once, so a server Shelf cannot use says so
            // clearly (no default bucket) instead of as refused collections, every run.
            spent += 1
            capabilities = await fetchCapabilities(within: budget)
            if let refusal = refusal(capabilities, spent: spent + report.requests) { return refusal }
        }
        if capabilities == nil, report.outcome == .synced {
            // An account from the environment: what the server offers is read once, after a
            // run that worked, and kept — the next runs' idle batch names the user's bucket
            // by its id (`ServerCapabilities.userBucket`), which costs the server less.
            spent += 1
            capabilities = await fetchCapabilities(within: budget)
        }
        learnPageLimit(report.serverPageLimit, capabilities)
        report.requests += spent
        return report
    }

    /// Kinto does not publish `paginate_by`: a page cut short shows it; later runs ask
    /// for pages of that size.
    private func learnPageLimit(_ limit: Int?, _ capabilities: ServerCapabilities?) {
        guard let limit, var known = capabilities, known.paginateBy != limit else { return }
        known.paginateBy = limit
        try? capabilitiesCache.save(known, for: account.name, server: account.server)
    }

    // MARK: Capabilities

    /// The engine with the server's limits applied (the defaults when they are unknown),
    /// and what is left of the budget.
    private func engine(for capabilities: ServerCapabilities?, within budget: RunBudget) -> SyncEngine {
        engine.with { options in
            if let capabilities { options = options.adapted(to: capabilities) }
            options.budget = budget.remaining
        }
    }

    /// `GET /v1/`, kept in the cache. Nil when the server cannot be asked now (or not
    /// within what is left of the budget): the run then goes ahead with the defaults and
    /// reports whatever stops it.
    private func fetchCapabilities(within budget: RunBudget) async -> ServerCapabilities? {
        let client = engine.client
        guard let info = await budget.bounding({ try await KintoServerInfoService(client: client).fetch() }) else { return nil }
        try? capabilitiesCache.save(info.capabilities, for: account.name, server: account.server)
        return info.capabilities
    }

    /// A server Shelf cannot sync with at all: its report, ending the run. The cached
    /// capabilities are dropped, so the next run asks again (the operator may fix it).
    private func refusal(_ capabilities: ServerCapabilities?, spent: Int) -> RunReport? {
        guard let capabilities else { return nil }
        let problem: AccountVerificationError?
        if !capabilities.isCompatible {
            problem = .incompatibleVersion(server: account.server, version: capabilities.httpAPIVersion)
        } else if !capabilities.hasDefaultBucket {
            problem = .noDefaultBucket(server: account.server)
        } else {
            problem = nil
        }
        guard let problem else { return nil }
        capabilitiesCache.forget(account.name)
        return RunReport(
            account: account.name.rawValue, outcome: .configurationError, message: problem.description, startedAt: clock.now(),
            requests: spent)
    }

    // MARK: Reads

    /// The repositories' refresh port over this account's engine and lock.
    public var refresher: SyncRefresher { refresher() }

    /// The refresh port, telling `onLockBusy` when a refresh waits for a run in progress.
    /// Without the password, every refresh fails with `credentialProblem` and asks nothing.
    public func refresher(onLockBusy: (@Sendable (Int32?) -> Void)? = nil) -> SyncRefresher {
        SyncRefresher(engine: engine, lockFile: lockFile, onLockBusy: onLockBusy, refusal: credentialProblem)
    }

    /// Throws `credentialProblem`, for work that needs the server outside a run
    /// (encryption's use cases).
    public func requireCredentials() throws(AccountConfigError) {
        if let credentialProblem { throw credentialProblem }
    }
}
