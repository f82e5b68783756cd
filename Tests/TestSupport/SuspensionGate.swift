// MARK: - SuspensionGate

/// A door that a fake's call waits at until the test opens it — the way Shelf tests
/// put async work in a chosen order without sleeping.
///
/// The fake calls `pass()`, which suspends. The test awaits `arrival()` to know the
/// call is there (no polling, no sleeps), does what it wants to happen meanwhile, then
/// `open(with:)` or `fail(with:)` lets every waiting call through with that outcome.
/// Calls that arrive after the gate opened pass straight through with the same outcome.
///
/// By default a waiting call that is cancelled throws `CancellationError` at once, as
/// a real service does; `honoursCancellation: false` makes it wait for the test
/// anyway, like a service that ignores cancellation — the harder case for a model.
public actor SuspensionGate<Value: Sendable> {
    private let honoursCancellation: Bool
    private var waiting: [Int: CheckedContinuation<Value, any Error>] = [:]
    private var registered: Set<Int> = []
    private var cancelledBeforeWaiting: Set<Int> = []
    private var outcome: Result<Value, any Error>?
    private var nextID = 0
    private var arrivals = 0
    private var arrivalWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init(honoursCancellation: Bool = true) {
        self.honoursCancellation = honoursCancellation
    }

    // MARK: The fake's side

    /// Waits until the test opens the gate, then returns or throws its outcome.
    public func pass() async throws -> Value {
        if let outcome {
            recordArrival()
            return try outcome.get()
        }
        let id = nextID
        nextID += 1
        guard honoursCancellation else {
            return try await withCheckedThrowingContinuation { continuation in
                wait(id, continuation)
            }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                wait(id, continuation)
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    // MARK: The test's side

    /// Returns once `count` calls have arrived at the gate (waiting or passed).
    public func arrival(count: Int = 1) async {
        guard arrivals < count else { return }
        await withCheckedContinuation { continuation in
            arrivalWatchers.append((count, continuation))
        }
    }

    /// How many calls have arrived so far.
    public var arrivalCount: Int { arrivals }

    /// How many calls are waiting now.
    public var waitingCount: Int { waiting.count }

    /// Lets every waiting and later call through with `value`.
    public func open(with value: Value) {
        finish(.success(value))
    }

    /// Lets every waiting and later call through by throwing `error`.
    public func fail(with error: any Error) {
        finish(.failure(error))
    }

    // MARK: Plumbing

    private func wait(_ id: Int, _ continuation: CheckedContinuation<Value, any Error>) {
        registered.insert(id)
        recordArrival()
        if cancelledBeforeWaiting.remove(id) != nil {
            continuation.resume(throwing: CancellationError())
        } else if let outcome {
            continuation.resume(with: outcome)
        } else {
            waiting[id] = continuation
        }
    }

    private func cancelWaiter(_ id: Int) {
        if let continuation = waiting.removeValue(forKey: id) {
            continuation.resume(throwing: CancellationError())
        } else if !registered.contains(id) {
            // NB: the cancellation hop overtook the registration (the task was cancelled
            // before it reached the gate); `wait` will see it.
            cancelledBeforeWaiting.insert(id)
        }
    }

    private func finish(_ result: Result<Value, any Error>) {
        outcome = result
        let continuations = waiting.values
        waiting.removeAll()
        for continuation in continuations { continuation.resume(with: result) }
    }

    private func recordArrival() {
        arrivals += 1
        let ready = arrivalWatchers.filter { $0.count <= arrivals }
        arrivalWatchers.removeAll { $0.count <= arrivals }
        for watcher in ready { watcher.continuation.resume() }
    }
}
