import Domain
import Repositories

// MARK: - FakeCollectionRefresher

/// A `CollectionRefreshing` (the sync engine's side of a repository refresh) that
/// counts calls and answers as the test scripts it.
///
/// A call first takes the next reply queued for its collection — a value, a failure, or
/// a wait at a `SuspensionGate` — then runs the collection's effect, if one is set: the
/// work the sync engine would do, such as writing pulled records into the store. So a
/// gated refresh changes the store only once the test opens the gate.
public actor FakeCollectionRefresher: CollectionRefreshing {
    /// Every call, in the order they arrived (before any wait).
    public private(set) var calls: [CollectionName] = []

    private var replies: [CollectionName: ReplyQueue<RefreshSummary>] = [:]
    private var effects: [CollectionName: @Sendable () throws -> RefreshSummary] = [:]

    public init() {}

    /// How many refreshes of `collection` were asked for.
    public func callCount(_ collection: CollectionName) -> Int {
        calls.count(where: { $0 == collection })
    }

    /// Queues the reply of the next unanswered call for `collection`.
    public func enqueue(_ reply: FakeReply<RefreshSummary>, for collection: CollectionName) {
        replies[collection, default: ReplyQueue()].enqueue(reply)
    }

    /// Sets what every later refresh of `collection` does once its reply lets it
    /// through; its result is the call's summary.
    public func onRefresh(_ collection: CollectionName, _ effect: @escaping @Sendable () throws -> RefreshSummary) {
        effects[collection] = effect
    }

    // MARK: CollectionRefreshing

    public func refresh(_ collection: CollectionName) async throws -> RefreshSummary {
        calls.append(collection)
        let reply = replies[collection]?.next()
        let scripted = try await reply?.resolve()
        if let effect = effects[collection] { return try effect() }
        return scripted ?? .unchanged
    }
}
