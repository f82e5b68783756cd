import Domain
import Foundation

// MARK: - RepositoryConfiguration

/// What every repository of an account shares: freshness policies, the clock, how new
/// ids are made, and who hears about refreshes.
///
/// Everything comes in here rather than from globals, so tests control time, ids and
/// the order of events.
public struct RepositoryConfiguration: Sendable {
    /// The policy of the reader's own collections (books, notes, tasks, cart, preferences, sessions).
    public var readerPolicy: FreshnessPolicy
    /// The policy of the shared catalog (products).
    public var catalogPolicy: FreshnessPolicy
    /// The time freshness is measured with. Default: the system clock.
    public var clock: SyncClock
    /// The id of each record the reader creates. Default: `RecordIDGenerator.uuid`.
    public var newID: RecordIDGenerator
    /// Told when refreshes start, are joined and finish (logging, `--verbose`, tests).
    /// Called on the repository's executor: it must return quickly.
    public var onEvent: @Sendable (RepositoryEvent) -> Void

    public init(
        readerPolicy: FreshnessPolicy = .readerData,
        catalogPolicy: FreshnessPolicy = .catalog,
        clock: SyncClock = .live,
        newID: RecordIDGenerator = .uuid,
        onEvent: @escaping @Sendable (RepositoryEvent) -> Void = { _ in }
    ) {
        self.readerPolicy = readerPolicy
        self.catalogPolicy = catalogPolicy
        self.clock = clock
        self.newID = newID
        self.onEvent = onEvent
    }

    /// The policy `collection` is served with.
    public func policy(for collection: CollectionName) -> FreshnessPolicy {
        collection.isReadOnly ? catalogPolicy : readerPolicy
    }
}
