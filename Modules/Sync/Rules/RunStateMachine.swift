import Foundation
import Services
import Storage

// MARK: - RunStateMachine

/// A run as a whole, as a value: which step comes next, decided from what the run was
/// asked to do (`Plan`) and what each step reported (`Event`). It does nothing itself:
/// `SyncRun.execute` carries out each `Action` and feeds back what came of it, in the
/// style of async-http-client's `Transaction.StateMachine`. So the order of a run, what a
/// failure at each step becomes, and when the budget runs are tested table by table with
/// no store and no server (`RunStateMachineTests`).
///
/// A run in order:
/// 1. the stored `Backoff` deadline is read, unless the run ignores it: a throttled server is
///    not asked again before it, not even once (a deadline further out than
///    `HeaderValues.maximumWait`, written by an older Shelf or under a clock set back,
///    counts as that maximum from now, so no value in the store can lock an account for ever);
/// 2. a worker told to rest decides whether this tick rests (`IdleRest`); a rested tick ends here;
/// 3. how records cross the wire is read (`WireSealing`);
/// 4. a whole run reads whether a first sync's bulk load left the order indexes out;
/// 5. under the run's budget: pull, push, reconcile (after the push, so a long
///    reconciliation never holds local edits back), close an encryption's migration, build
///    the order indexes left out;
/// 6. the budget stops and the run finishes: outcome, last complete sync, idle streak.
///
/// A failure at any step stops the run with the stop its class makes (`SyncStop.from`),
/// except two that say more: a store found damaged names its file and `shelf doctor`, and
/// any failure once the budget ran out names the budget.
struct RunStateMachine {
    // MARK: What the run is asked to do

    /// What the run was asked to do, read from its options.
    struct Plan: Equatable {
        var pulls: Bool
        var pushes: Bool
        /// Run even though the server asked to wait (`--ignore-backoff`).
        var ignoresBackoff: Bool
        /// A worker told to rest (`--rest-when-idle`) may rest this tick.
        var mayRest: Bool
        /// The run's time budget, named by a run it stops.
        var budget: Duration?
        /// The store's file, named by a run that finds it damaged.
        var storePath: String

        /// Both pulls and pushes: only such a run rests, or builds the order indexes.
        var isWhole: Bool { pulls && pushes }

        init(
            pulls: Bool, pushes: Bool, ignoresBackoff: Bool = false, mayRest: Bool = false, budget: Duration? = nil,
            storePath: String = "shelf.sqlite"
        ) {
            (self.pulls, self.pushes, self.ignoresBackoff, self.budget, self.storePath) = (pulls, pushes, ignoresBackoff, budget, storePath)
            self.mayRest = mayRest && pulls && pushes
        }

        /// The plan of a run with `options`. A run told to reconcile (`--reconcile`,
        /// `--reconcile-whole`) always asks the server, so never rests.
        init(_ options: SyncOptions, storePath: String) {
            self.init(
                pulls: options.pulls, pushes: options.pushes, ignoresBackoff: options.ignoresBackoff,
                mayRest: options.idleRest != nil && !options.reconcilesNow && !options.reconcilesWhole,
                budget: options.budget, storePath: storePath)
        }
    }

    /// A step of the run's budgeted work, in the order they run.
    enum Step: Equatable, CaseIterable {
        case pull, push, reconcile, closeMigration, buildOrderIndexes
    }

    // MARK: Actions and events

    /// What the run does next.
    enum Action: Equatable {
        /// Read the latest `Backoff` deadline stored for the run's collections.
        case readStoredBackoff
        /// Decide whether this tick rests (`IdleRest`), writing down the rest if it does.
        case decideRest
        /// Read how records cross the wire (`WireSealing`).
        case resolveSealing
        /// Read whether the order indexes are missing (a first sync's bulk load leaves them out).
        case readOrderIndexes
        /// Start the budget's timer, if this is the first budgeted step, then run `step`.
        case run(Step, startsBudget: Bool)
        /// Stop the budget's timer and finish a run that did all its steps (`finishSuccessfully`).
        case finish
        /// Stop the budget's timer and stop the run: its outcome and message, recorded
        /// against its collections unless it was cancelled.
        case stop(SyncStop, capabilitiesChanged: Bool)
        /// The run is over: report it.
        case report
    }

    /// What came of the last action.
    enum Event {
        /// It was done.
        case done
        /// The latest `Backoff` deadline stored for the run's collections (nil: none), read at `now`.
        case storedBackoff(until: Date?, now: Date)
        /// The tick rests (`true`) or runs.
        case rests(Bool)
        /// The order indexes are missing (`true`) or present.
        case orderIndexesLeftOut(Bool)
        /// It failed with `error`, at `now`. `budgetRanOut` says whether the budget's
        /// timer had cancelled the run by then.
        case failed(any Error, budgetRanOut: Bool, now: Date)
    }

    // MARK: State

    private enum State: Equatable {
        case initial
        case checkingBackoff
        case decidingRest
        case resolvingSealing
        case readingOrderIndexes
        /// Running a budgeted step; `ordersLeftOut` says whether the run ends by building them.
        case working(Step, ordersLeftOut: Bool)
        case finishing
        case stopping
        case over
    }

    let plan: Plan
    private var state = State.initial

    init(_ plan: Plan) {
        self.plan = plan
    }

    /// Whether the run is over (its last action was `.report`).
    var isOver: Bool { state == .over }

    // MARK: Deciding

    /// The run's first action.
    mutating func start() -> Action {
        precondition(state == .initial, "a run starts once")
        return plan.ignoresBackoff ? afterBackoff() : move(to: .checkingBackoff, .readStoredBackoff)
    }

    /// The next action, after `event` ended the last one.
    mutating func next(after event: Event) -> Action {
        if case .failed(let error, let budgetRanOut, let now) = event { return failed(error, budgetRanOut: budgetRanOut, now: now) }
        switch (state, event) {
        case (.checkingBackoff, .storedBackoff(let stored, let now)):
            guard let stored, stored > now else { return afterBackoff() }
            let deadline = min(stored, now.addingTimeInterval(HeaderValues.maximumWait))
            let stop = SyncStop.backoff(until: deadline, reason: "the server asked clients to wait (Backoff / Retry-After)")
            return move(to: .stopping, .stop(stop, capabilitiesChanged: false))
        case (.decidingRest, .rests(let rests)):
            return rests ? move(to: .over, .report) : resolveSealing()
        case (.resolvingSealing, .done):
            return plan.isWhole ? move(to: .readingOrderIndexes, .readOrderIndexes) : firstStep(ordersLeftOut: false)
        case (.readingOrderIndexes, .orderIndexesLeftOut(let leftOut)):
            return firstStep(ordersLeftOut: leftOut)
        case (.working(let step, let ordersLeftOut), .done):
            return self.step(after: step, ordersLeftOut: ordersLeftOut)
        case (.finishing, .done), (.stopping, .done):
            return move(to: .over, .report)
        default:
            preconditionFailure("a run in \(state) got \(event)")
        }
    }

    // MARK: Steps

    /// What comes once the server may be asked: a worker told to rest decides first.
    private mutating func afterBackoff() -> Action {
        plan.mayRest ? move(to: .decidingRest, .decideRest) : resolveSealing()
    }

    private mutating func resolveSealing() -> Action {
        move(to: .resolvingSealing, .resolveSealing)
    }

    private mutating func firstStep(ordersLeftOut: Bool) -> Action {
        guard let first = steps(ordersLeftOut: ordersLeftOut).first else { return move(to: .finishing, .finish) }
        return move(to: .working(first, ordersLeftOut: ordersLeftOut), .run(first, startsBudget: true))
    }

    private mutating func step(after done: Step, ordersLeftOut: Bool) -> Action {
        let steps = steps(ordersLeftOut: ordersLeftOut)
        guard let index = steps.firstIndex(of: done), index + 1 < steps.count else { return move(to: .finishing, .finish) }
        let next = steps[index + 1]
        return move(to: .working(next, ordersLeftOut: ordersLeftOut), .run(next, startsBudget: false))
    }

    /// The budgeted steps of this run, in order.
    func steps(ordersLeftOut: Bool) -> [Step] {
        Step.allCases.filter { step in
            switch step {
            case .pull, .reconcile: plan.pulls
            case .push: plan.pushes
            case .closeMigration: true
            // NB: a read's refresh, which pulls one collection within a second, leaves them
            // to the next whole run (`ListingIndexes` in Storage says why a first sync does).
            case .buildOrderIndexes: ordersLeftOut && plan.isWhole
            }
        }
    }

    private mutating func move(to state: State, _ action: Action) -> Action {
        self.state = state
        return action
    }

    // MARK: Failures

    /// The stop a failure makes: a damaged store names its file; a failure of the
    /// budgeted work once the budget ran out names the budget (whatever the cancelled
    /// request said); anything else stops as its class says. Failing to record a stop
    /// changes nothing: the run is reported as it stopped.
    private mutating func failed(_ error: any Error, budgetRanOut: Bool, now: Date) -> Action {
        switch state {
        case .stopping:
            return move(to: .over, .report)
        case .initial, .over:
            preconditionFailure("a run in \(state) failed")
        case .checkingBackoff, .decidingRest, .resolvingSealing, .readingOrderIndexes, .working, .finishing:
            break
        }
        let capabilitiesChanged = (error as? APIError).map(SyncRun.saysCapabilitiesChanged) ?? false
        let stop: SyncStop
        if let storage = error as? StorageError, storage.isCorruption {
            let damage = IntegrityReport(path: plan.storePath, depth: .quick, problems: ["\(storage)"], schemaVersion: nil)
            stop = .localStore(DamagedStoreError(report: damage).description)
        } else if case .working = state, budgetRanOut, let limit = plan.budget {
            stop = .temporary(
                "the run took longer than its budget of \(SyncRun.describe(limit)); stopped (the next run continues where this one stopped)")
        } else {
            stop = SyncStop.from(error, now: now)
        }
        return move(to: .stopping, .stop(stop, capabilitiesChanged: capabilitiesChanged))
    }
}
