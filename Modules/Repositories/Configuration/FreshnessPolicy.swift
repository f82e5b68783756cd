import Foundation

// MARK: - FreshnessPolicy

/// When a repository may answer from what it has and when it must ask the server first.
///
/// The age of a collection is the time since its last successful refresh (by this
/// repository, or by the sync engine in any process — see `CollectionRefreshing`):
///
/// | age                                        | read                                        |
/// |--------------------------------------------|---------------------------------------------|
/// | `< maxAge`                                 | fresh: served as it is, no request          |
/// | `< maxAge + staleWhileRevalidate`          | served now; one refresh runs behind         |
/// | older, never refreshed, or in the future   | one refresh first, then served              |
/// | any, with `force`                          | one refresh first, then served              |
///
/// A view task asking for data is a trigger, not a cache policy: whatever asks, this
/// decides whether the network is involved.
public struct FreshnessPolicy: Hashable, Sendable {
    /// How long after a refresh the data counts as fresh.
    public var maxAge: Duration
    /// How long after `maxAge` stale data may still be served at once while a refresh
    /// runs behind. Zero turns stale-while-revalidate off.
    public var staleWhileRevalidate: Duration

    public init(maxAge: Duration, staleWhileRevalidate: Duration = .zero) {
        self.maxAge = maxAge
        self.staleWhileRevalidate = staleWhileRevalidate
    }

    /// The reader's own collections (books, notes, tasks, cart, preferences, sessions): fresh for two minutes,
    /// then served at once for an hour while a refresh runs behind. The reader's edits
    /// are local and immediate anyway; what a refresh brings is other devices' edits.
    public static let readerData = FreshnessPolicy(maxAge: .seconds(120), staleWhileRevalidate: .seconds(3600))

    /// The shop catalog: changes rarely and costs a 304 to check, so fresh for fifteen
    /// minutes and served while revalidating for a day.
    public static let catalog = FreshnessPolicy(maxAge: .seconds(900), staleWhileRevalidate: .seconds(86_400))

    // MARK: Deciding

    /// What a read does now.
    /// - Parameters:
    ///   - fetchedAt: the last successful refresh; nil when there has been none.
    ///   - force: the reader asked for the server's latest (a per-read override).
    public func decision(fetchedAt: Date?, now: Date, force: Bool) -> FreshnessDecision {
        guard !force, let age = age(fetchedAt: fetchedAt, now: now) else { return .refreshFirst }
        if age < maxAge.seconds { return .serveCached }
        if age < (maxAge + staleWhileRevalidate).seconds { return .serveAndRevalidate }
        return .refreshFirst
    }

    /// Whether data refreshed at `fetchedAt` is still within `maxAge` at `now`.
    public func isFresh(fetchedAt: Date?, now: Date) -> Bool {
        guard let age = age(fetchedAt: fetchedAt, now: now) else { return false }
        return age < maxAge.seconds
    }

    /// Seconds since `fetchedAt`; nil when never fetched or when `fetchedAt` lies in the
    /// future (the clock was set back), which no age can be trusted after.
    private func age(fetchedAt: Date?, now: Date) -> Double? {
        guard let fetchedAt else { return nil }
        let age = now.timeIntervalSince(fetchedAt)
        return age >= 0 ? age : nil
    }
}

// MARK: - FreshnessDecision

/// What a read does, by `FreshnessPolicy.decision(fetchedAt:now:force:)`.
public enum FreshnessDecision: Hashable, Sendable {
    /// Fresh: answer from the store and cache, no request.
    case serveCached
    /// Stale but within stale-while-revalidate: answer now, refresh behind.
    case serveAndRevalidate
    /// Wait for one refresh, then answer (with the refresh's error if it failed).
    case refreshFirst
}

// MARK: - Duration in seconds

extension Duration {
    /// The duration as fractional seconds, for comparing with `Date` intervals.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
