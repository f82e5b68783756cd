import Foundation
import Repositories
import Services
import Storage
import Sync
import Vocabulary

// MARK: - WorkerRound

/// One round of the worker: every selected account synced (at most `concurrency` at a
/// time), each under its own lock, each failing alone. A broken account gets its own
/// `.configurationError` report and log line while the others sync; the round's exit
/// status is the worst account's.
public struct WorkerRound: Sendable {
    public let paths: ShelfPaths
    public let options: SyncOptions
    public let log: WorkerLog
    /// Accounts synced at once: each holds a connection and a store, and one server
    /// usually serves them all.
    public let concurrency: Int
    /// How every account reaches its server; nil for the shared libcurl transport
    /// (trusting each account's private CA when it names one).
    public let transport: (any HTTPTransport)?
    /// Size limits raised through the environment (`SHELF_MAX_RESPONSE_MB`): with no
    /// `transport` given, each account then gets one with that limit and its own CA.
    public let limits: LimitOverrides?
    /// The worker's clock (`ProgramContext.clock`), handed to every account's run.
    public let clock: SyncClock

    public init(
        paths: ShelfPaths, options: SyncOptions, log: WorkerLog, concurrency: Int = 2,
        transport: (any HTTPTransport)? = nil, limits: LimitOverrides? = nil, clock: SyncClock = .live
    ) {
        self.clock = clock
        self.paths = paths
        self.options = options
        self.log = log
        self.concurrency = max(1, concurrency)
        self.transport = transport
        self.limits = limits
    }

    /// Syncs `accounts` and returns their reports in the order given.
    public func run(_ accounts: [WorkerAccount]) async -> WorkerResult {
        let started = clock.now()
        let reports = await withTaskGroup(of: (Int, RunReport).self) { group in
            var results: [(Int, RunReport)] = []
            var next = 0
            func startNext() {
                guard next < accounts.count else { return }
                let index = next
                let account = accounts[index]
                next += 1
                group.addTask { (index, await sync(account)) }
            }
            for _ in 0..<concurrency { startNext() }
            for await result in group {
                results.append(result)
                startNext()
            }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        return WorkerResult(startedAt: started, finishedAt: clock.now(), accounts: reports, configurationError: nil)
    }

    /// A round that could not start: no account to sync at all.
    public func failed(_ error: WorkerConfigurationError) -> WorkerResult {
        log.note("configuration error: \(error)", account: nil, level: .error, event: "configuration_error")
        return WorkerResult(startedAt: clock.now(), finishedAt: clock.now(), accounts: [], configurationError: "\(error)")
    }

    private func sync(_ account: WorkerAccount) async -> RunReport {
        let name = account.name
        let resolved: ResolvedAccount
        switch account {
        case .broken(_, let reason):
            log.note("configuration error: \(reason)", account: name, level: .error, event: "configuration_error")
            return RunReport(account: name, outcome: .configurationError, message: reason, startedAt: clock.now())
        case .ready(let ready):
            resolved = ready
        }
        if Task.isCancelled {
            return RunReport(account: name, outcome: .temporaryFailure, message: "not started: the worker is stopping", startedAt: clock.now())
        }
        let setup: AccountSync
        do {
            setup = try AccountSync(
                account: resolved, paths: paths, options: options,
                transport: transport ?? limits?.transport(caFile: resolved.caFile), timeouts: limits?.timeouts() ?? .default,
                clock: clock)
            try? SyncedPreferencesStore.carryOver(in: setup.store)
        } catch let error as StorageError where error.isCorruption {
            let damage = IntegrityReport(path: paths.database(resolved.name).description, depth: .quick, problems: ["\(error)"], schemaVersion: nil)
            let message = DamagedStoreError(report: damage).description
            log.note(message, account: name, level: .error, event: "store_failed")
            return RunReport(account: name, outcome: .localStoreFailure, message: message, startedAt: clock.now())
        } catch {
            let message = "cannot open the local store \(paths.database(resolved.name)): \(error)"
            log.note(message, account: name, level: .error, event: "store_failed")
            return RunReport(account: name, outcome: .localStoreFailure, message: message, startedAt: clock.now())
        }
        if let problem = setup.credentialProblem {
            let message = "cannot sync without the account's password: \(problem)"
            log.note("configuration error: \(message)", account: name, level: .error, event: "configuration_error")
            return RunReport(account: name, outcome: .configurationError, message: message, startedAt: clock.now())
        }
        let log = self.log
        let report = await setup.runLocked { event in log.log(event, account: name) }
        if report.outcome == .alreadyRunning {
            log.note(report.message, account: name, level: .warning, event: "already_running")
        }
        return report
    }
}

// MARK: - WorkerResult

/// How a round ended: each account's report and the status the process exits with.
public struct WorkerResult: Sendable {
    public let startedAt: Date
    public let finishedAt: Date
    /// Every account the round was asked to sync, in order, broken ones included.
    public let accounts: [RunReport]
    /// Set when there was nothing to sync at all.
    public let configurationError: String?

    public var worstOutcome: RunOutcome {
        configurationError != nil ? .configurationError : RunOutcome.worst(accounts.map(\.outcome))
    }

    public var exitStatus: ExitCode { worstOutcome.exitStatus }

    /// One line for people: each account's message, or the configuration error.
    public var message: String {
        configurationError ?? accounts.map { "\($0.account): \($0.message)" }.joined(separator: "; ")
    }

    /// The `--report` document.
    public var report: WorkerReport {
        WorkerReport(startedAt: startedAt, finishedAt: finishedAt, exitCode: exitStatus,
                     exitReason: worstOutcome.rawValue, message: message, accounts: accounts)
    }
}
