// MARK: - ModelTasks

/// The work a view model has in flight, owned by the model so it can be cancelled as
/// a whole: by the model's `cancel()` intent, and by an account switch, which calls
/// `cancel()` on the old account's models.
///
/// Each piece of work runs in its own task on the main actor. The caller awaits it,
/// and cancelling the caller's task cancels the work too (a view that goes away
/// takes its load with it). Inside the work, `Task.isCancelled` is the signal to
/// drop a result instead of publishing it.
@MainActor
final class ModelTasks {
    private var running: [Int: Task<Void, Never>] = [:]
    private var shared: (id: Int, task: Task<Void, Never>)?
    private var nextID = 0
    /// Bumped by `cancelAll()`, so work that began before it can tell it was cancelled
    /// even after its own task has finished.
    private var epoch = 0

    // MARK: Running

    /// Runs `work` as a task of its own and waits for it.
    func run(_ work: @escaping @MainActor () async -> Void) async {
        let (id, task) = spawn(work)
        await wait(for: task)
        running[id] = nil
    }

    /// Runs `work` unless an earlier `runShared` is still in flight, in which case it
    /// waits for that one instead: two refresh intents cost one service call.
    ///
    /// NB: the shared work is one piece of work for all its callers, so cancelling any
    /// waiting caller cancels it for all of them, as `cancel()` does.
    func runShared(_ work: @escaping @MainActor () async -> Void) async {
        if let shared {
            await wait(for: shared.task)
            return
        }
        let (id, task) = spawn(work)
        shared = (id, task)
        await wait(for: task)
        running[id] = nil
        if shared?.id == id { shared = nil }
    }

    /// Runs one service call as owned work and says how it went.
    ///
    /// `.cancelled` means the result must not be published: the call was cancelled, or
    /// `cancelAll()` ran while it was in flight. The check happens on the main actor
    /// right before returning, so a caller that publishes on `.success` publishes
    /// nothing that a cancellation came before.
    func attempt<Value>(_ call: @escaping @MainActor () async throws -> Value) async -> Attempt<Value> {
        let startEpoch = epoch
        var outcome = Attempt<Value>.cancelled
        await run {
            do {
                let value = try await call()
                outcome = Task.isCancelled ? .cancelled : .success(value)
            } catch {
                outcome = Task.isCancelled ? .cancelled : .failure(error)
            }
        }
        guard startEpoch == epoch, !Task.isCancelled else { return .cancelled }
        return outcome
    }

    // MARK: Cancelling

    /// Cancels everything in flight. Work started afterwards runs normally.
    func cancelAll() {
        epoch &+= 1
        for task in running.values { task.cancel() }
        running.removeAll()
        shared = nil
    }

    // MARK: Plumbing

    private func spawn(_ work: @escaping @MainActor () async -> Void) -> (Int, Task<Void, Never>) {
        let id = nextID
        nextID &+= 1
        let task = Task { @MainActor in await work() }
        running[id] = task
        return (id, task)
    }

    private func wait(for task: Task<Void, Never>) async {
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }
}

// MARK: - Attempt

/// How one service call went, as `ModelTasks.attempt` reports it.
enum Attempt<Value> {
    case success(Value)
    case failure(any Error)
    /// Cancelled: publish nothing.
    case cancelled
}
