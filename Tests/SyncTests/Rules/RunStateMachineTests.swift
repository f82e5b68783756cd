import Foundation
import Services
import Storage
import Testing
@testable import Sync

// MARK: - RunStateMachineTests

/// A run as a whole, decided without a store or a server (`RunStateMachine`): the order of
/// its steps for each kind of run, when the budget starts, and what a failure at each step
/// becomes. The engine's runs against fakes and a real Kinto (`BoundedRunTests`,
/// `IdleRestRunTests`, `BulkLoadSyncTests`, …) carry out the same machine.
@Suite struct RunStateMachineTests {
    typealias Machine = RunStateMachine
    typealias Action = RunStateMachine.Action

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Carries out `machine` to its end, each step succeeding: a tick rests when `rests`,
    /// and the order indexes are missing when `ordersLeftOut`. Returns every action, in order.
    static func actions(_ plan: Machine.Plan, rests: Bool = false, ordersLeftOut: Bool = false) -> [Action] {
        var machine = Machine(plan)
        var actions = [machine.start()]
        while actions.last != .report, actions.count < 50 {
            let event: Machine.Event = switch actions.last {
            case .readStoredBackoff: .storedBackoff(until: nil, now: now)
            case .decideRest: .rests(rests)
            case .readOrderIndexes: .orderIndexesLeftOut(ordersLeftOut)
            default: .done
            }
            actions.append(machine.next(after: event))
        }
        #expect(machine.isOver)
        return actions
    }

    // MARK: - The order of a run

    struct OrderCase: CustomTestStringConvertible, Sendable {
        let name: String
        let plan: Machine.Plan
        var rests = false
        var ordersLeftOut = false
        let actions: [Action]
        var testDescription: String { name }
    }

    static let orders: [OrderCase] = [
        OrderCase(
            name: "a whole run: pull, push, reconcile, close a migration, the budget from the pull on",
            plan: .init(pulls: true, pushes: true),
            actions: [
                .readStoredBackoff, .resolveSealing, .readOrderIndexes, .run(.pull, startsBudget: true),
                .run(.push, startsBudget: false), .run(.reconcile, startsBudget: false), .run(.closeMigration, startsBudget: false),
                .finish, .report,
            ]),
        OrderCase(
            name: "a whole run after a first sync's bulk load builds the order indexes last",
            plan: .init(pulls: true, pushes: true), ordersLeftOut: true,
            actions: [
                .readStoredBackoff, .resolveSealing, .readOrderIndexes, .run(.pull, startsBudget: true),
                .run(.push, startsBudget: false), .run(.reconcile, startsBudget: false), .run(.closeMigration, startsBudget: false),
                .run(.buildOrderIndexes, startsBudget: false), .finish, .report,
            ]),
        OrderCase(
            name: "a read's refresh pulls and reconciles, and never reads or builds the order indexes",
            plan: .init(pulls: true, pushes: false),
            actions: [
                .readStoredBackoff, .resolveSealing, .run(.pull, startsBudget: true), .run(.reconcile, startsBudget: false),
                .run(.closeMigration, startsBudget: false), .finish, .report,
            ]),
        OrderCase(
            name: "a push alone: the budget starts with the push",
            plan: .init(pulls: false, pushes: true),
            actions: [.readStoredBackoff, .resolveSealing, .run(.push, startsBudget: true), .run(.closeMigration, startsBudget: false), .finish, .report]),
        OrderCase(
            name: "a run asked to do neither still closes a migration under the budget",
            plan: .init(pulls: false, pushes: false),
            actions: [.readStoredBackoff, .resolveSealing, .run(.closeMigration, startsBudget: true), .finish, .report]),
        OrderCase(
            name: "a run told to ignore the server's wait (--ignore-backoff) does not read it",
            plan: .init(pulls: true, pushes: true, ignoresBackoff: true),
            actions: [
                .resolveSealing, .readOrderIndexes, .run(.pull, startsBudget: true),
                .run(.push, startsBudget: false), .run(.reconcile, startsBudget: false), .run(.closeMigration, startsBudget: false),
                .finish, .report,
            ]),
        OrderCase(
            name: "a worker told to rest asks after the backoff check; a tick that runs is a whole run",
            plan: .init(pulls: true, pushes: true, mayRest: true),
            actions: [
                .readStoredBackoff, .decideRest, .resolveSealing, .readOrderIndexes, .run(.pull, startsBudget: true),
                .run(.push, startsBudget: false), .run(.reconcile, startsBudget: false), .run(.closeMigration, startsBudget: false),
                .finish, .report,
            ]),
        OrderCase(
            name: "a tick that rests asks the server nothing and finishes nothing",
            plan: .init(pulls: true, pushes: true, mayRest: true), rests: true,
            actions: [.readStoredBackoff, .decideRest, .report]),
        OrderCase(
            name: "only a whole run may rest",
            plan: .init(pulls: true, pushes: false, mayRest: true),
            actions: [
                .readStoredBackoff, .resolveSealing, .run(.pull, startsBudget: true), .run(.reconcile, startsBudget: false),
                .run(.closeMigration, startsBudget: false), .finish, .report,
            ]),
    ]

    @Test(arguments: orders)
    func theOrderOfARun(_ example: OrderCase) {
        #expect(Self.actions(example.plan, rests: example.rests, ordersLeftOut: example.ordersLeftOut) == example.actions)
    }

    // MARK: - The plan from a run's options

    struct PlanCase: CustomTestStringConvertible, Sendable {
        let name: String
        let change: @Sendable (inout SyncOptions) -> Void
        let mayRest: Bool
        var testDescription: String { name }
    }

    static let plans: [PlanCase] = [
        PlanCase(name: "no rest asked", change: { _ in }, mayRest: false),
        PlanCase(name: "a worker told to rest", change: { $0.idleRest = IdleRest(longest: 4) }, mayRest: true),
        PlanCase(name: "--reconcile always asks the server",
                 change: { $0.idleRest = IdleRest(longest: 4); $0.reconcilesNow = true }, mayRest: false),
        PlanCase(name: "--reconcile-whole always asks the server",
                 change: { $0.idleRest = IdleRest(longest: 4); $0.reconcilesWhole = true }, mayRest: false),
        PlanCase(name: "a pull alone never rests", change: { $0.idleRest = IdleRest(longest: 4); $0.pushes = false }, mayRest: false),
        PlanCase(name: "a push alone never rests", change: { $0.idleRest = IdleRest(longest: 4); $0.pulls = false }, mayRest: false),
        PlanCase(name: "--ignore-backoff", change: { $0.ignoresBackoff = true }, mayRest: false),
    ]

    @Test(arguments: plans)
    func thePlanFromOptions(_ example: PlanCase) {
        var options = SyncOptions()
        options.budget = .seconds(7)
        example.change(&options)
        let plan = Machine.Plan(options, storePath: "/data/shelf.sqlite")
        #expect(plan.mayRest == example.mayRest)
        #expect(plan.pulls == options.pulls && plan.pushes == options.pushes)
        #expect(plan.budget == .seconds(7) && plan.storePath == "/data/shelf.sqlite")
        #expect(plan.ignoresBackoff == options.ignoresBackoff)
    }

    // MARK: - A wait the server asked for

    struct BackoffCase: CustomTestStringConvertible, Sendable {
        let name: String
        let stored: Date?
        /// The deadline the run stops at; nil when it goes on.
        let stopsUntil: Date?
        var testDescription: String { name }
    }

    static let backoffs: [BackoffCase] = [
        BackoffCase(name: "none stored: the run goes on", stored: nil, stopsUntil: nil),
        BackoffCase(name: "a deadline passed: the run goes on", stored: now.addingTimeInterval(-1), stopsUntil: nil),
        BackoffCase(name: "a deadline reached this very moment: the run goes on", stored: now, stopsUntil: nil),
        BackoffCase(name: "a deadline ahead: the run stops until then, asking nothing",
                    stored: now.addingTimeInterval(90), stopsUntil: now.addingTimeInterval(90)),
        BackoffCase(name: "a deadline further out than the longest wait counts as that wait from now",
                    stored: now.addingTimeInterval(HeaderValues.maximumWait * 100),
                    stopsUntil: now.addingTimeInterval(HeaderValues.maximumWait)),
    ]

    @Test(arguments: backoffs)
    func aStoredWait(_ example: BackoffCase) {
        var machine = Machine(.init(pulls: true, pushes: true, mayRest: true))
        #expect(machine.start() == .readStoredBackoff)
        let next = machine.next(after: .storedBackoff(until: example.stored, now: Self.now))
        if let until = example.stopsUntil {
            #expect(next == .stop(.backoff(until: until, reason: "the server asked clients to wait (Backoff / Retry-After)"), capabilitiesChanged: false))
            #expect(machine.next(after: .done) == .report)
        } else {
            #expect(next == .decideRest)
        }
    }

    // MARK: - Failures

    /// A whole run with a budget of 3 s, carried to the step `failing`, which fails.
    /// Returns the action that failure leads to.
    static func failing(
        at failing: Action, with error: any Error, budgetRanOut: Bool = false, budget: Duration? = .seconds(3), mayRest: Bool = true
    ) -> Action {
        var machine = Machine(.init(pulls: true, pushes: true, mayRest: mayRest, budget: budget, storePath: "/data/shelf.sqlite"))
        var action = machine.start()
        for _ in 0..<20 where action != failing {
            let event: Machine.Event = switch action {
            case .readStoredBackoff: .storedBackoff(until: nil, now: now)
            case .decideRest: .rests(false)
            case .readOrderIndexes: .orderIndexesLeftOut(true)
            default: .done
            }
            action = machine.next(after: event)
        }
        #expect(action == failing, "the run never reached \(failing)")
        let stop = machine.next(after: .failed(error, budgetRanOut: budgetRanOut, now: now))
        // Whatever a stop is, the run is reported after it, and only then.
        #expect(machine.next(after: .done) == .report)
        #expect(machine.isOver)
        return stop
    }

    static let everyStep: [Action] = [
        .readStoredBackoff, .decideRest, .resolveSealing, .readOrderIndexes, .run(.pull, startsBudget: true),
        .run(.push, startsBudget: false), .run(.reconcile, startsBudget: false), .run(.closeMigration, startsBudget: false),
        .run(.buildOrderIndexes, startsBudget: false), .finish,
    ]

    static let transient = APIError.transport(
        TransportFailure(kind: .timeout, method: .get, url: "http://127.0.0.1:1/v1/", message: "timed out"))

    @Test(arguments: everyStep)
    func aFailureAtAnyStepStopsTheRunAsItsClassSays(_ step: Action) {
        #expect(Self.failing(at: step, with: Self.transient) == .stop(.temporary("\(Self.transient)"), capabilitiesChanged: false))
        let full = StorageError.sqlite(operation: "write", code: 13, message: "database or disk is full")
        #expect(Self.failing(at: step, with: full) == .stop(.localStore("\(full)"), capabilitiesChanged: false))
        #expect(Self.failing(at: step, with: CancellationError()) == .stop(.cancelled, capabilitiesChanged: false))
    }

    @Test(arguments: everyStep)
    func aDamagedStoreNamesItsFileAndTheDoctorAtAnyStep(_ step: Action) {
        let damage = StorageError.sqlite(operation: "read", code: 11, message: "database disk image is malformed")
        guard case .stop(.localStore(let message), false) = Self.failing(at: step, with: damage, budgetRanOut: true) else {
            Issue.record("a damaged store did not stop the run as the store's failure")
            return
        }
        #expect(message.contains("/data/shelf.sqlite"))
        #expect(message.contains("database disk image is malformed"))
        #expect(message.contains("shelf doctor"))
    }

    @Test func aStopAlreadyMadeIsKept() {
        let until = Self.now.addingTimeInterval(60)
        let backoff = SyncStop.backoff(until: until, reason: "the server asked clients to wait")
        #expect(Self.failing(at: .run(.pull, startsBudget: true), with: backoff) == .stop(backoff, capabilitiesChanged: false))
    }

    @Test func aThrottledAnswerWaitsFromTheMomentItFailed() {
        guard let throttled = BatchResult(
            status: 429, path: "/v1/batch", headers: ["Retry-After": "30"],
            body: Data(#"{"code":429,"errno":111,"error":"Too Many Requests","message":"slow down"}"#.utf8), method: .get).error
        else {
            Issue.record("429 is no failure")
            return
        }
        guard case .stop(.backoff(let until, _), _) = Self.failing(at: .run(.pull, startsBudget: true), with: throttled) else {
            Issue.record("a throttled answer did not stop the run with a backoff")
            return
        }
        #expect(until == Self.now.addingTimeInterval(30))
    }

    // MARK: The budget

    static let budgetMessage = "the run took longer than its budget of 3 s; stopped (the next run continues where this one stopped)"

    static let budgetedSteps: [Action] = everyStep.filter { if case .run = $0 { true } else { false } }

    @Test(arguments: budgetedSteps)
    func aBudgetedStepCutByTheBudgetNamesTheBudget(_ step: Action) {
        // The request the timer cancelled says only that it was cancelled: the run says why.
        #expect(Self.failing(at: step, with: CancellationError(), budgetRanOut: true) == .stop(.temporary(Self.budgetMessage), capabilitiesChanged: false))
        #expect(Self.failing(at: step, with: Self.transient, budgetRanOut: true) == .stop(.temporary(Self.budgetMessage), capabilitiesChanged: false))
    }

    @Test(arguments: [Action.readStoredBackoff, .decideRest, .resolveSealing, .readOrderIndexes, .finish])
    func aStepOutsideTheBudgetIsNeverBlamedOnIt(_ step: Action) {
        #expect(Self.failing(at: step, with: CancellationError(), budgetRanOut: true) == .stop(.cancelled, capabilitiesChanged: false))
    }

    @Test func withoutABudgetAFailureIsNeverBlamedOnOne() {
        #expect(Self.failing(at: .run(.pull, startsBudget: true), with: CancellationError(), budgetRanOut: true, budget: nil)
            == .stop(.cancelled, capabilitiesChanged: false))
    }

    @Test func theBudgetsWordsAreTenthsOfASecond() {
        var machine = Machine(.init(pulls: false, pushes: true, budget: .milliseconds(250)))
        _ = machine.start()
        _ = machine.next(after: .storedBackoff(until: nil, now: Self.now))
        #expect(machine.next(after: .done) == .run(.push, startsBudget: true))
        let stop = machine.next(after: .failed(CancellationError(), budgetRanOut: true, now: Self.now))
        #expect(stop == .stop(.temporary("the run took longer than its budget of 0.3 s; stopped (the next run continues where this one stopped)"), capabilitiesChanged: false))
    }

    // MARK: What the server's answer says

    static func answer(_ status: Int, _ message: String, path: String) -> APIError? {
        let body = Data(#"{"code":\#(status),"errno":107,"error":"E","message":"\#(message)"}"#.utf8)
        return BatchResult(status: status, path: path, headers: [:], body: body, method: .post).error
    }

    @Test func aRefusalThatSaysTheServersLimitsChangedIsReportedSo() throws {
        let tooLarge = try #require(Self.answer(400, "Number of requests is limited to 25", path: "/v1/batch"))
        let readOnly = try #require(Self.answer(405, "Method not allowed", path: "/v1/buckets/default/collections/books/records"))
        let otherwise = try #require(Self.answer(400, "Invalid parameters", path: "/v1/batch"))
        for (error, changed) in [(tooLarge, true), (readOnly, true), (otherwise, false)] {
            #expect(Self.failing(at: .run(.push, startsBudget: false), with: error) == .stop(.temporary("\(error)"), capabilitiesChanged: changed))
        }
    }

    // MARK: After the stop

    @Test func failingToRecordAStopStillReportsTheRun() {
        var machine = Machine(.init(pulls: true, pushes: true))
        _ = machine.start()
        #expect(machine.next(after: .failed(Self.transient, budgetRanOut: false, now: Self.now)) == .stop(.temporary("\(Self.transient)"), capabilitiesChanged: false))
        #expect(machine.next(after: .failed(CancellationError(), budgetRanOut: false, now: Self.now)) == .report)
        #expect(machine.isOver)
    }
}
