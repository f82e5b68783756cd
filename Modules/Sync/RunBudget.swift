import Domain
import Foundation

// MARK: - RunBudget

/// What is left of a run's time budget (`SyncOptions.budget`) while several steps share
/// it: capability reads and engine runs under one lock.
struct RunBudget: Sendable {
    private let deadline: ContinuousClock.Instant?
    private let clock: SyncClock

    /// A budget of `limit` from now; nil for none. What is left is measured on the
    /// monotonic clock; the wait for it to run out is `clock`'s.
    init(_ limit: Duration?, clock: SyncClock) {
        deadline = limit.map { ContinuousClock.now + $0 }
        self.clock = clock
    }

    /// The time left (zero once spent); nil when there is no budget.
    var remaining: Duration? {
        guard let deadline else { return nil }
        let left = deadline - ContinuousClock.now
        return left > .zero ? left : .zero
    }

    /// Runs `operation`, giving up (nil) when it fails or when the budget runs out first;
    /// the operation is then cancelled, and awaited until it has unwound.
    func bounding<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async -> T? {
        guard let remaining else { return try? await operation() }
        guard remaining > .zero else { return nil }
        return await withTaskGroup(of: T?.self) { group in
            group.addTask { try? await operation() }
            group.addTask { [clock] in
                try? await clock.sleep(remaining)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
    }
}
