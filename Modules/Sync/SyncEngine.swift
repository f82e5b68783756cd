import Domain
import Foundation
import Services
import Storage
import Synchronization

// MARK: - SyncEngine

/// Syncs one account's local store with its Kinto server: pull every collection's
/// changes, merge them with waiting local edits, push the outbox.
///
/// Durability is per step: each pulled page is applied together with the cursor that
/// follows it, and each pushed batch's answers in one transaction, so a run killed at
/// any point leaves a store the next run continues from — nothing applied twice,
/// nothing skipped, no local edit lost. The engine does not lock: callers hold the
/// account's `RunLock` for the duration of a run.
public final class SyncEngine: Sendable {
    public let account: String
    public let store: ShelfStore
    public let client: APIClient
    public let options: SyncOptions
    let clock: SyncClock

    public init(account: String, store: ShelfStore, client: APIClient, options: SyncOptions = SyncOptions(), clock: SyncClock = .live) {
        self.account = account
        self.store = store
        self.client = client
        self.options = options
        self.clock = clock
    }

    /// The same engine with other options (e.g. one collection, pull only).
    public func with(_ change: (inout SyncOptions) -> Void) -> SyncEngine {
        var options = self.options
        change(&options)
        return SyncEngine(account: account, store: store, client: client, options: options, clock: clock)
    }

    // MARK: Running

    /// Runs once and streams what happens; the last event is `.runFinished(report)`.
    public func events() -> AsyncStream<SyncEvent> {
        let (stream, continuation) = AsyncStream<SyncEvent>.makeStream(bufferingPolicy: .unbounded)
        let task = Task {
            _ = await self.run { continuation.yield($0) }
            continuation.finish()
        }
        continuation.onTermination = { reason in
            if case .cancelled = reason { task.cancel() }
        }
        return stream
    }

    /// Runs once.
    ///
    /// The run's state (`SyncRun`) is made, used and dropped inside one task, the one the
    /// budget's timer cancels (`BudgetTimer`): that task's closure holds only `Sendable`
    /// values (this engine, `onEvent`, the timer), and what leaves it is the report, a
    /// value. `SyncRun` is not `Sendable`, so the compiler refuses any other way out.
    /// - Parameter onEvent: called for every event, in order, the final `.runFinished` included.
    /// - Returns: the run's report; its `outcome` says how it ended. A run never throws:
    ///   every failure is sorted into an outcome with a message.
    @discardableResult
    public func run(onEvent: @escaping @Sendable (SyncEvent) -> Void = { _ in }) async -> RunReport {
        let budget = BudgetTimer(options.budget, clock: clock)
        let worker = Task { await SyncRun(engine: self, onEvent: onEvent, budget: budget).execute() }
        budget.cancels(worker)
        return await withTaskCancellationHandler {
            await worker.value
        } onCancel: {
            worker.cancel()
        }
    }
}

// MARK: - BudgetTimer

/// A run's time budget (`SyncOptions.budget`) as a timer: started when the run's work
/// starts, it cancels the run's task when the budget runs out — every request in flight is
/// aborted at once (the transport resumes it with `CancellationError`) — and says so
/// (`expired`), so that the run ends naming its budget. Stopped when the work ends.
final class BudgetTimer: Sendable {
    private struct State {
        /// The run's task, cancelled when the budget runs out.
        var worker: Task<RunReport, Never>?
        var timer: Task<Void, Never>?
        var expired = false
    }

    private let budget: Duration?
    private let clock: SyncClock
    private let state = Mutex(State())

    /// - Parameter budget: nil for none: the timer never starts.
    init(_ budget: Duration?, clock: SyncClock) {
        self.budget = budget
        self.clock = clock
    }

    /// Whether the budget ran out.
    var expired: Bool { state.withLock { $0.expired } }

    /// The task to cancel when the budget runs out; at once when it ran out already.
    func cancels(_ worker: Task<RunReport, Never>) {
        let expired = state.withLock { state in
            state.worker = worker
            return state.expired
        }
        if expired { worker.cancel() }
    }

    /// The run's budgeted work starts: the budget starts running out.
    func start() {
        guard let budget else { return }
        let timer = Task { [clock] in
            try? await clock.sleep(budget)
            guard !Task.isCancelled else { return }
            self.runOut()
        }
        state.withLock { $0.timer = timer }
    }

    /// The work ended: the budget no longer runs out.
    func stop() {
        state.withLock { $0.timer }?.cancel()
    }

    private func runOut() {
        let worker = state.withLock { state in
            state.expired = true
            return state.worker
        }
        worker?.cancel()
    }
}

// MARK: - SyncRun

/// The state of one run: its report so far and its event sink.
///
/// It lives inside the one task that runs it (`SyncEngine.run`), and never leaves it: a
/// class that is not `Sendable` (the conformance is declared unavailable below), so the
/// compiler refuses to send it, or a closure that holds it, to another task. Work that
/// runs beside the run (a push batch in flight, a page asked for ahead) takes only
/// `Sendable` values, and hands its result back to this task.
final class SyncRun {
    let engine: SyncEngine
    let onEvent: @Sendable (SyncEvent) -> Void
    /// The run's time budget, whose timer cancels this run's task.
    let budget: BudgetTimer
    var report: RunReport
    let started: ContinuousClock.Instant
    var randomness = SystemRandomNumberGenerator()
    /// Set when a response carried `Backoff`: the run stops after the current step.
    var backoffUntil: Date?
    /// Pages pulled so far in this run, over all collections (`SyncOptions.maximumPages`).
    var pagesPulled = 0
    /// Collections the server refused for good this run, with why (`CollectionIsolation`).
    var unavailable: [CollectionName: String] = [:]
    /// Local changes left unsent because the server is read-only.
    var waitingForWritableServer = 0
    /// How the reader's records cross the wire this run (`WireSealing`), read at its start.
    var sealing = WireSealing.plaintext
    /// Why this run pushes nothing sealed, when it learnt that this device's key is not
    /// the current one (`checkKeyring`) or met records under keys its keyring lacks.
    var pushHold: String?
    /// Key ids of records met this run that this device's keyring does not list.
    var unknownKeys: Set<String> = []
    /// The server's keyring was refused this run (altered, rolled back, deleted).
    var keyringRefused = false

    var store: ShelfStore { engine.store }
    var options: SyncOptions { engine.options }
    var now: Date { engine.clock.now() }

    init(engine: SyncEngine, onEvent: @escaping @Sendable (SyncEvent) -> Void, budget: BudgetTimer) {
        self.engine = engine
        self.onEvent = onEvent
        self.budget = budget
        self.started = ContinuousClock.now
        self.report = RunReport(account: engine.account, outcome: .synced, message: "", startedAt: engine.clock.now())
    }

    func emit(_ event: SyncEvent) { onEvent(event) }

    /// Runs the steps `RunStateMachine` decides, one at a time, feeding back what came of
    /// each; the machine decides the order, what a failure becomes and when the budget runs.
    func execute() async -> RunReport {
        emit(.runStarted(collections: options.collections))
        var machine = RunStateMachine(RunStateMachine.Plan(options, storePath: store.location.description))
        var action = machine.start()
        while true {
            let event: RunStateMachine.Event
            do {
                switch action {
                case .readStoredBackoff:
                    event = .storedBackoff(until: try storedBackoff(), now: now)
                case .decideRest:
                    event = .rests(try restsThisTick())
                case .resolveSealing:
                    try resolveSealing()
                    event = .done
                case .readOrderIndexes:
                    // NB: read before anything is pulled: a first sync's bulk load leaves them out.
                    event = .orderIndexesLeftOut(try store.read { reader in try !reader.hasOrderIndexes() })
                case .run(let step, let startsBudget):
                    if startsBudget { budget.start() }
                    try await run(step)
                    event = .done
                case .finish:
                    budget.stop()
                    try finishSuccessfully()
                    event = .done
                case .stop(let reason, let capabilitiesChanged):
                    budget.stop()
                    if capabilitiesChanged { report.capabilitiesChanged = true }
                    stop(reason)
                    event = .done
                case .report:
                    report.durationMilliseconds = milliseconds(since: started)
                    emit(.runFinished(report))
                    return report
                }
            } catch {
                event = .failed(error, budgetRanOut: budget.expired, now: now)
            }
            action = machine.next(after: event)
        }
    }

    /// Carries out one budgeted step of the run. The budget's timer (`BudgetTimer`)
    /// cancels the run's task when it runs out, so every request in flight is aborted at
    /// once; what was stored so far stays stored.
    private func run(_ step: RunStateMachine.Step) async throws {
        switch step {
        case .pull: try await pullAll()
        case .push: try await pushAll()
        case .reconcile: try await reconcileDue()
        case .closeMigration: try await closeMigrationIfDone()
        case .buildOrderIndexes: try store.write { tx in try tx.buildOrderIndexes() }
        }
    }

    // MARK: Budget

    /// `3 s`, `0.2 s`: to a tenth of a second, which is all a budget means.
    static func describe(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        // NB: clamped so that no Duration, however long, can trap the conversion below.
        let tenths = min((Double(seconds) * 10 + Double(attoseconds) / 1e17).rounded(), 1e15)
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10)) s" : "\(tenths / 10) s"
    }

    // MARK: Outcome

    /// Ends a run that did all its steps: its outcome and message as `RunConclusion`
    /// decides them from what the run met (`conclusionFacts`), and the store's last
    /// complete sync when it was one.
    private func finishSuccessfully() throws {
        try clearStoredBackoff()
        let conclusion = RunConclusion.conclude(try conclusionFacts())
        report.outcome = conclusion.outcome
        report.message = conclusion.message
        let streak = try idleStreakAfter(conclusion)
        guard conclusion.isComplete || streak != nil else { return }
        let started = report.startedAt
        try store.write { tx in
            if conclusion.isComplete { try tx.recordCompleteSync(at: started) }
            if let streak { try tx.setIdleStreak(streak) }
        }
    }

    // MARK: Resting

    /// Whether this tick rests (`IdleRest`): no request, the report `.rested`, and one
    /// tick fewer to rest written down. Only a whole run of a worker told to rest does;
    /// a local change waiting, or `--reconcile`, always asks the server.
    private func restsThisTick() throws -> Bool {
        // NB: `RunStateMachine.Plan.mayRest` asks only when a rest is possible.
        guard let rest = options.idleRest else { return false }
        // NB: read, decided and written in one transaction: a local edit saved meanwhile by
        // `shelf` is either seen here (the tick runs) or saved after the rest is written.
        let rested = try store.write { tx -> IdleStreak? in
            guard case .rest(let left) = rest.atTick(try tx.idleStreak(), localChangesWaiting: try tx.pendingCount() > 0) else { return nil }
            try tx.setIdleStreak(left)
            return left
        }
        guard let left = rested else { return false }
        report.outcome = .rested
        report.message = IdleRest.message(left)
        return true
    }

    /// The idle streak this run leaves, nil when it stays as stored: a whole run that
    /// ended `synced` with nothing pulled, merged, settled or reconciled in any collection
    /// (its own changes pushed or not) lengthens it; any run that brought something ends it.
    private func idleStreakAfter(_ conclusion: RunConclusion) throws -> IdleStreak? {
        let idle = conclusion.outcome == .synced && conclusion.isComplete && report.keyring == nil
            && report.collections.values.allSatisfy(\.broughtNothing)
        // NB: an idle run that never rests leaves the streak as it is: no read (`shelf sync`'s case).
        if idle && options.idleRest == nil { return nil }
        let stored = try store.read { reader in try reader.idleStreak() }
        let next = IdleRest.after(stored, runWasIdle: idle, rest: options.idleRest)
        return next == stored ? nil : next
    }

    /// What a hostile server did that the reader must hear of: versions put back or
    /// written in the clear (refused; this device's go back), records it deleted alone
    /// (kept here until `shelf encryption put-back`), a keyring refused, pushes held for a key this
    /// device knows to be replaced.
    func integrityNotes() throws -> [String] {
        guard case .sealed = sealing else { return [] }
        let rolledBack = report.collections.values.reduce(0) { $0 + $1.rolledBack }
        let inTheClear = report.collections.values.reduce(0) { $0 + $1.inTheClear }
        let deleted = try store.read { reader in try reader.serverDeletions().count }
        var notes: [String] = []
        if rolledBack > 0 {
            notes.append("the server put back \(rolledBack) older version\(rolledBack == 1 ? "" : "s") (refused; this device's go back)")
        }
        if inTheClear > 0 {
            notes.append("the server showed \(inTheClear) record\(inTheClear == 1 ? "" : "s") in the clear (refused)")
        }
        if deleted > 0 {
            notes.append("the server deleted \(deleted) record\(deleted == 1 ? "" : "s") without you (kept here: 'shelf encryption put-back' uploads them again)")
        }
        if keyringRefused, let said = report.keyring { notes.append(said) }
        if let pushHold { notes.append(pushHold) }
        return notes
    }

    private func stop(_ reason: SyncStop) {
        report.outcome = reason.outcome
        report.message = reason.message
        if case .backoff(let until, _) = reason { report.backoffUntil = until }
        if case .cancelled = reason { return }
        let message = reason.message
        let at = now
        // Best effort: the store may be what failed.
        try? store.write { tx in
            for collection in self.options.collections where self.unavailable[collection] == nil {
                try tx.updateSyncState(collection) { state in
                    if case .backoff(let until, _) = reason { state.backoffUntil = until }
                    state.lastError = message
                    state.lastErrorAt = at
                }
            }
        }
    }

    /// The latest `Backoff` deadline stored for the run's collections, nil for none;
    /// `RunStateMachine` decides what it means.
    private func storedBackoff() throws -> Date? {
        let states = try store.read { reader in try reader.syncStates() }
        return states.filter { options.collections.contains($0.collection) }.compactMap(\.backoffUntil).max()
    }

    /// A run that got through clears the deadline it ran past (or that had passed), and
    /// keeps one the server asked for during this run (an ignored `Backoff`).
    private func clearStoredBackoff() throws {
        let kept = backoffUntil
        let collections = options.collections
        // NB: read first, so an ordinary run (no deadline before or after) writes nothing.
        let stale = try store.read { reader in
            try collections.filter { try reader.syncState($0).backoffUntil != kept }
        }
        guard !stale.isEmpty else { return }
        try store.write { tx in
            for collection in stale {
                try tx.updateSyncState(collection) { $0.backoffUntil = kept }
            }
        }
    }

    /// Remembers a `Backoff` header (clamped to `HeaderValues.maximumWait`); the run
    /// stops once the current step is stored.
    func noteBackoff(_ seconds: TimeInterval?) {
        guard let seconds, seconds > 0 else { return }
        let until = now.addingTimeInterval(HeaderValues.clamped(seconds))
        backoffUntil = max(backoffUntil ?? until, until)
    }

    /// Whether the run stops early for a `Backoff` it met (not when told to ignore it).
    var stopsForBackoff: Bool { backoffUntil != nil && !options.ignoresBackoff }

    /// Stops the run when the server asked for a pause during the last step.
    func honourBackoff() throws {
        guard let until = backoffUntil, !options.ignoresBackoff else { return }
        throw SyncStop.backoff(until: until, reason: "the server asked clients to back off (Backoff header)")
    }

    // MARK: Retries

    /// Runs `operation`, retrying what `FailureClass.isRetriedWithinRun` says (transient
    /// failures: timeouts, refused connections, 5xx) with exponential backoff and jitter, at
    /// most `options.retry.maxAttempts` times. A throttled answer (429 or 503 with
    /// `Retry-After`) is not retried here: it becomes a stored backoff.
    func withRetries<T>(_ what: String, _ operation: () async throws -> T) async throws -> T {
        try await Self.retrying(
            what, policy: options.retry, clock: engine.clock, onEvent: onEvent, countAttempt: { report.requests += 1 }, operation)
    }

    /// `withRetries` without the run's state, for work on a task of its own (a push
    /// batch in flight beside others): attempts are counted through `countAttempt`.
    static func retrying<T>(
        _ what: String, policy: RetryPolicy, clock: SyncClock, onEvent: @Sendable (SyncEvent) -> Void,
        countAttempt: () -> Void, _ operation: () async throws -> T
    ) async throws -> T {
        var randomness = SystemRandomNumberGenerator()
        var attempt = 1
        while true {
            do {
                countAttempt()
                return try await operation()
            } catch {
                // NB: a stop is a decision already made (retries given up, a budget spent).
                guard !(error is SyncStop), FailureClass(error).isRetriedWithinRun else { throw error }
                guard attempt < policy.maxAttempts else {
                    throw SyncStop.temporary("\(what): \(error) (gave up after \(attempt) attempt\(attempt == 1 ? "" : "s"))")
                }
                let delay = policy.delay(beforeRetry: attempt, using: &randomness)
                onEvent(.retrying(attempt: attempt + 1, delay: delay, reason: "\(what): \(error)"))
                try await clock.sleep(delay)
                attempt += 1
            }
        }
    }

    // MARK: Helpers

    func collectionReport(_ collection: CollectionName, _ change: (inout CollectionReport) -> Void) {
        var entry = report.collections[collection.rawValue] ?? CollectionReport()
        change(&entry)
        report.collections[collection.rawValue] = entry
    }

    func milliseconds(since start: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// A run's state belongs to the task that runs it: never `Sendable`, not even unchecked.
@available(*, unavailable)
extension SyncRun: Sendable {}
