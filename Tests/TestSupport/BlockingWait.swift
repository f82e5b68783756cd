import Foundation
import Synchronization

// MARK: - BlockingWait

/// Blocking work a test waits for — a child process, a pipe read to its end — on a
/// thread of its own.
///
/// Not on Swift's cooperative pool: a blocked pool thread (one per core, two here)
/// starves every other test's `await`. Not on Dispatch's global queues either: their
/// pool grows by about one thread a second when its threads block (measured here with
/// 40 blocked blocks: 3 threads after 1 s, 13 after 12 s), so when many tests wait on
/// programs at once a wait can sit queued behind the blocked ones — and a wait that
/// needs a second queued block (a pipe's reader) waits for that one too. A thread per
/// wait costs a thread per running child, which the tests bound.
public enum BlockingWait {
    /// Runs `work` on a new thread and returns its result.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    /// Runs throwing `work` on a new thread and returns its result.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// Starts `work` on a new thread; `wait()` on the handle returns once it is done.
    public static func start(_ work: @escaping @Sendable () -> Void) -> Handle {
        let done = DispatchSemaphore(value: 0)
        Thread {
            work()
            done.signal()
        }.start()
        return Handle(done: done)
    }

    /// Work started by `start`.
    public struct Handle: Sendable {
        let done: DispatchSemaphore

        /// Blocks until the work is done.
        public func wait() { done.wait() }
    }
}
