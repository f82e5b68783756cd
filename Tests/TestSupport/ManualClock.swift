import Domain
import Foundation
import Synchronization

// MARK: - ManualClock

/// A clock that moves only when the test moves it: its `clock` is the `SyncClock` the
/// code under test is given, whose "now" is the test's and whose waits (a retry's delay,
/// a run's budget) end only when the test advances past them.
public final class ManualClock: Sendable {
    private struct Sleeper {
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Int: Sleeper] = [:]
        var cancelledBeforeWaiting: Set<Int> = []
        var nextID = 0
        var sleeps = 0
        var sleepWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    /// Starts at `start`; by default `SampleShelf.now`.
    public init(_ start: Date = SampleShelf.now) {
        state = Mutex(State(now: start))
    }

    public var now: Date {
        state.withLock { $0.now }
    }

    /// Moves the clock forward (or back, with a negative duration); every wait whose end
    /// it reaches returns.
    public func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now = state.now.addingTimeInterval(Self.seconds(duration))
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns once `count` waits have started on this clock (ended or not): a test
    /// advances the clock after the code under test began to wait, never before.
    public func sleepStarted(count: Int = 1) async {
        await withCheckedContinuation { (watcher: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                guard state.sleeps < count else { return true }
                state.sleepWatchers.append((count, watcher))
                return false
            }
            if ready { watcher.resume() }
        }
    }

    /// The clock as the closure injected code expects.
    public var function: @Sendable () -> Date {
        { [self] in now }
    }

    /// The clock to inject: this clock's "now", and waits that end when it is advanced.
    public var clock: SyncClock {
        SyncClock(now: { [self] in now }, sleep: { [self] duration in try await sleep(duration) })
    }

    // MARK: Waiting

    private func sleep(_ duration: Duration) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, watchers) = state.withLock { state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    state.sleeps += 1
                    let sleeps = state.sleeps
                    let ready = state.sleepWatchers.filter { $0.count <= sleeps }.map(\.continuation)
                    state.sleepWatchers.removeAll { $0.count <= sleeps }
                    if state.cancelledBeforeWaiting.remove(id) != nil { return (.failure(CancellationError()), ready) }
                    if duration <= .zero { return (.success(()), ready) }
                    state.sleepers[id] = Sleeper(deadline: state.now.addingTimeInterval(Self.seconds(duration)), continuation: continuation)
                    return (nil, ready)
                }
                for watcher in watchers { watcher.resume() }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledBeforeWaiting.insert(id)
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
