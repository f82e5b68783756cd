import Storage

// MARK: - IdleRest

/// Resting after idle runs (`shelf-sync --rest-when-idle N`): when whole runs in a row bring
/// nothing from the server (nothing pulled, merged or settled), the worker asks the server only
/// every second tick, then every fourth, doubling up to every `longest`-th. A local change ends
/// the rest at once, and its run, which also pulls, keeps the streak: what this device pushes
/// says nothing of other devices' changes, which are what the rest waits for. Another
/// device's change reaches this one up to `longest - 1` ticks later than it would.
///
/// Why: an idle run is one request, but a fleet of idle devices is almost all of a Kinto
/// server's load (Benchmarks/README.md, the projection), and each of those requests costs
/// the server about three times the CPU it costs the device. Resting trades how soon a
/// remote change arrives on an idle device for that load; it is off unless the worker is told.
///
/// A value with no store and no server (`IdleRestTests`): `SyncRun` reads the streak and
/// the outbox, asks `atTick`, and writes down what `after` says at a run's end.
public struct IdleRest: Sendable, Equatable {
    /// The most ticks between two runs that ask the server.
    public let longest: Int

    /// The range `--rest-when-idle` accepts: 1 is every tick (no rest); past 64 ticks a
    /// five-minute cron would leave a device more than five hours behind.
    public static let accepted = 1...64

    /// Nil for 1 (every tick asks the server) and for a value outside `accepted`.
    public init?(longest: Int) {
        guard Self.accepted.contains(longest), longest > 1 else { return nil }
        self.longest = longest
    }

    // MARK: - A tick

    /// What a tick does.
    enum Tick: Equatable {
        /// Ask the server: a whole run.
        case run
        /// Rest: no request; the streak to write down, and the ticks still to rest after this one.
        case rest(IdleStreak)
    }

    /// Rests while the streak says so and no local change waits: a change made here is
    /// never held back by a rest.
    func atTick(_ streak: IdleStreak, localChangesWaiting: Bool) -> Tick {
        // NB: clamped: a streak written under a longer rest than this worker allows.
        let left = min(streak.ticksToRest, longest - 1)
        guard !localChangesWaiting, left > 0 else { return .run }
        return .rest(IdleStreak(idleRuns: streak.idleRuns, ticksToRest: left - 1))
    }

    // MARK: - After a run

    /// The streak a finished run leaves: a run that brought something ends the streak (for
    /// any run, `shelf sync` included); an idle run (one that only pushed this device's
    /// changes included) lengthens it when the worker rests (`rest`), so that the next
    /// `1, 2, 4 … longest` ticks minus one are rested.
    /// - Parameter rest: nil for a run that never rests; its idle runs leave the streak as it is.
    static func after(_ streak: IdleStreak, runWasIdle: Bool, rest: IdleRest?) -> IdleStreak {
        guard runWasIdle else { return IdleStreak() }
        guard let rest else { return streak }
        let runs = min(streak.idleRuns + 1, IdleStreak.maximum)
        // NB: the shift is bounded (2^20 is far past any `longest`), so it cannot overflow.
        let spacing = min(1 << min(runs - 1, 20), rest.longest)
        return IdleStreak(idleRuns: runs, ticksToRest: spacing - 1)
    }

    /// "rested: …" for a rested tick's report: why, and when the server is asked again.
    static func message(_ streak: IdleStreak) -> String {
        let runs = streak.idleRuns == 1 ? "the last run" : "the last \(streak.idleRuns) runs"
        let next = streak.ticksToRest == 0 ? "at the next tick" : "in \(streak.ticksToRest + 1) ticks, or at the next tick after a local change"
        return "rested: \(runs) brought nothing from the server; the server is asked again \(next)"
    }
}

// MARK: - An idle run

extension CollectionReport {
    /// Nothing came from the server: every count zero but this device's own pushes, nothing
    /// reconciled, refused or found lost. Any count added later counts as something brought.
    var broughtNothing: Bool {
        var counts = self
        counts.durationMilliseconds = 0
        // NB: a push sends this device's changes; it tells nothing of other devices'.
        counts.pushed = 0
        return counts == CollectionReport()
    }
}
