import Observation

// MARK: - ContentController

/// One screen's content and everything that may change it: the `LoadingState`, the
/// message of the last failure, and the work in flight.
///
/// Every feature model keeps its content here, so the rules are written once:
/// - each load takes a ticket; only the newest ticket may publish, so a load that
///   finishes after a newer one was started is dropped;
/// - a cancelled load publishes nothing and puts back the state it interrupted;
/// - a failed load keeps the value on screen and sets the message;
/// - an intent's result is published only if nothing cancelled it meanwhile.
@MainActor
@Observable
final class ContentController<Value> {
    private(set) var state: LoadingState<Value> = .idle
    /// The last failure of a load or an intent; cleared by the next success.
    private(set) var errorMessage: String?
    /// The error behind `errorMessage`, for a front that tells failures apart by kind
    /// (the CLI's exit statuses and its `Error: …` line).
    private(set) var failure: (any Error)?

    @ObservationIgnored private let tasks = ModelTasks()
    /// The ticket of the newest load; a load publishes only while it holds it.
    @ObservationIgnored private var generation = 0
    /// The settled state the loads in flight interrupted, restored on cancellation.
    @ObservationIgnored private var settled: LoadingState<Value> = .idle

    /// How a load treats a load that is already in flight.
    enum Overlap {
        /// Each call asks the service; the newest call's answer wins.
        case newestWins
        /// A call joins the load in flight: two calls cost one service call.
        case joinInFlight
    }

    // MARK: Loading

    /// Loads the content with `fetch` and publishes the outcome.
    /// - Parameters:
    ///   - action: what the load does, for the failure message ("load books").
    func load(
        _ overlap: Overlap, action: String,
        _ fetch: @escaping @MainActor () async throws -> Value
    ) async {
        switch overlap {
        case .newestWins:
            generation &+= 1
            let ticket = generation
            await tasks.run { [self] in await perform(ticket: ticket, action: action, fetch) }
        case .joinInFlight:
            await tasks.runShared { [self] in
                generation &+= 1
                await perform(ticket: generation, action: action, fetch)
            }
        }
    }

    private func perform(
        ticket: Int, action: String, _ fetch: @MainActor () async throws -> Value
    ) async {
        // A load cancelled before it started never shows as loading.
        guard !Task.isCancelled else { return }
        if !state.isLoading { settled = state }
        state = state.startingLoad()
        let result: Result<Value, any Error>
        do {
            result = .success(try await fetch())
        } catch {
            result = .failure(error)
        }
        guard ticket == generation else { return }
        guard !Task.isCancelled else {
            state = state.cancellingLoad(settledBefore: settled)
            return
        }
        switch result {
        case .success(let value):
            state = .loaded(value)
            errorMessage = nil
            failure = nil
        case .failure(let error):
            fail(FailureMessage.make(action, error))
            failure = error
        }
    }

    /// Cancels every load and intent in flight; none of them publishes, and a screen
    /// that was loading goes back to what it showed before.
    func cancel() {
        generation &+= 1
        tasks.cancelAll()
        if state.isLoading { state = state.cancellingLoad(settledBefore: settled) }
    }

    // MARK: Intents

    /// Runs an intent's service call.
    /// - Returns: the call's value, or nil when it failed (the message is published)
    ///   or was cancelled (nothing is published).
    func attempt<Result>(
        _ action: String, _ call: @escaping @MainActor () async throws -> Result
    ) async -> Result? {
        switch await tasks.attempt(call) {
        case .success(let value):
            errorMessage = nil
            failure = nil
            return value
        case .failure(let error):
            errorMessage = FailureMessage.make(action, error)
            failure = error
            return nil
        case .cancelled:
            return nil
        }
    }

    /// Runs an intent's service call that returns nothing.
    /// - Returns: whether it succeeded and may be published.
    func attempt(_ action: String, _ call: @escaping @MainActor () async throws -> Void) async -> Bool {
        await attempt(action, { try await call(); return true }) ?? false
    }

    /// Runs an intent's call that writes the content, and shows what it wrote.
    /// - Returns: the value written, or nil when the call failed or was cancelled.
    func write(_ action: String, _ call: @escaping @MainActor () async throws -> Value) async -> Value? {
        guard let value = await attempt(action, call) else { return nil }
        show(value)
        return value
    }

    /// Changes the content shown under a rule, has `save` write the change, then shows it.
    /// Nothing shown, or a change the rule refuses, is refused without a write.
    /// - Returns: the value as saved, or nil.
    func change(
        _ action: String, _ what: String, _ change: (inout Value) throws -> Void,
        save: @escaping @MainActor (Value) async throws -> Void
    ) async -> Value? {
        guard var value = state.value else {
            refuse(action, FeatureError.notLoaded(what))
            return nil
        }
        do {
            try change(&value)
        } catch {
            refuse(action, error)
            return nil
        }
        let changed = value
        return await write(action) { try await save(changed); return changed }
    }

    /// Shows `value` as the content, as read or written elsewhere (a record a detail
    /// screen was opened on).
    func show(_ value: Value) {
        state = .loaded(value)
    }

    /// Applies a local change to the content on screen.
    func update(_ transform: (Value) -> Value) {
        state = state.mapValue(transform)
    }

    /// Publishes a failure: the message, and a failed state that keeps the value.
    func fail(_ message: String) {
        state = state.failing(message)
        errorMessage = message
    }

    /// Publishes why an intent was refused, without touching the content.
    func refuse(_ action: String, _ error: any Error) {
        errorMessage = FailureMessage.make(action, error)
        failure = error
    }
}
