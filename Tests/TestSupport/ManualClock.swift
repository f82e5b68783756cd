import Foundation
import Synchronization

// MARK: - ManualClock

/// A clock that moves only when the test moves it, for code that takes its time from
/// an injected `@Sendable () -> Date` (freshness, backoff, timestamps).
public final class ManualClock: Sendable {
    private let current: Mutex<Date>

    /// Starts at `start`; by default `SampleShelf.now`.
    public init(_ start: Date = SampleShelf.now) {
        current = Mutex(start)
    }

    public var now: Date {
        current.withLock { $0 }
    }

    /// Moves the clock forward (or back, with a negative duration).
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let interval = Double(seconds) + Double(attoseconds) / 1e18
        current.withLock { $0 = $0.addingTimeInterval(interval) }
    }

    /// The clock as the closure injected code expects.
    public var function: @Sendable () -> Date {
        { [self] in now }
    }
}
