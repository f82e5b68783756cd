import Foundation

// MARK: - IdleStreak

/// What this device remembers of its worker's runs that brought nothing from the server:
/// how many came in a row, and how many ticks it still rests before asking the server again
/// (`IdleRest` in Sync decides both). Kept in the device's own `preferences` table, as
/// the last complete sync is, because it says what this device did.
public struct IdleStreak: Sendable, Equatable {
    /// Whole runs in a row that brought nothing from the server.
    public var idleRuns: Int
    /// Ticks left to rest before the next run asks the server.
    public var ticksToRest: Int

    public init(idleRuns: Int = 0, ticksToRest: Int = 0) {
        self.idleRuns = max(0, idleRuns)
        self.ticksToRest = max(0, ticksToRest)
    }

    /// The largest either count is kept at: a streak is about minutes, not years.
    public static let maximum = 1_000_000
}

extension StoreReader {
    /// The idle streak; none when never written.
    ///
    /// NB: a value this store cannot read counts as no streak: the next run then asks the
    /// server, which is what a run without the memory does. It never stops a sync.
    public func idleStreak() throws(StorageError) -> IdleStreak {
        guard let data = try preference(Self.idleStreakKey) else { return IdleStreak() }
        let parts = String(decoding: data.prefix(32), as: UTF8.self).split(separator: " ")
        guard parts.count == 2, let runs = Int(parts[0]), let rest = Int(parts[1]),
              (0...IdleStreak.maximum).contains(runs), (0...IdleStreak.maximum).contains(rest)
        else { return IdleStreak() }
        return IdleStreak(idleRuns: runs, ticksToRest: rest)
    }

    static let idleStreakKey = "idle_streak"
}

extension StoreTransaction {
    /// Remembers `streak` (`"<idle runs> <ticks to rest>"`), writing nothing when the store
    /// holds it already: an ordinary run with no streak writes no row.
    public func setIdleStreak(_ streak: IdleStreak) throws(StorageError) {
        let kept = IdleStreak(idleRuns: min(streak.idleRuns, IdleStreak.maximum), ticksToRest: min(streak.ticksToRest, IdleStreak.maximum))
        guard try idleStreak() != kept else { return }
        try setPreference(Self.idleStreakKey, Data("\(kept.idleRuns) \(kept.ticksToRest)".utf8))
    }
}
