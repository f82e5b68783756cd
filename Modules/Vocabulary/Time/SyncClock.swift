import Foundation

// MARK: - SyncClock

/// The one clock Shelf reads: "now" for whatever it stamps, measures freshness with or
/// shows, and the wait between retries and before a run's budget runs out.
///
/// A program's context holds one (`ProgramContext.clock`) and hands it down to the store,
/// the repositories, the engine and its budget timer, so a test that injects a manual
/// clock controls every date Shelf writes and every wait it makes. `live` is the only
/// place in the modules where the system's date is read.
///
/// NB: elapsed time inside one process (a request's duration, a lock's wait, what is
/// left of a budget) is measured with the monotonic `ContinuousClock`, which no setting
/// of the date moves; this clock is the wall clock, and the waits a test must control.
public struct SyncClock: Sendable {
    /// The wall-clock time now.
    public var now: @Sendable () -> Date
    /// Waits `duration` (throws `CancellationError` when cancelled first).
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The system's clock, and real waits.
    public static let live = SyncClock(now: { Date() }, sleep: { try await Task.sleep(for: $0) })
}
