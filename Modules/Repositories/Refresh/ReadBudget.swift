import Domain

// MARK: - ReadBudget

/// How long a read may wait on the network, all its refreshes together: a person
/// typing `shelf books` gets an answer within the budget, whatever the server does.
///
/// The budget is one deadline shared by every refresh of one command, so a read that
/// needs two collections (the cart and the catalog) waits for both within it, not for
/// each in turn.
///
/// How long is the command's to say: `shelf` reads `SHELF_READ_SECONDS`, a second unless
/// set (`LimitOverrides.readWait`), long enough for a nearby server to answer a
/// conditional request or a page of changes, short enough to feel immediate.
public struct ReadBudget: Sendable {
    /// The whole allowance, for messages.
    public let limit: Duration
    private let isSpent: @Sendable () -> Bool
    private let expiry: @Sendable () async throws -> Void

    /// A budget of `limit` from now.
    public init(_ limit: Duration) {
        let deadline = ContinuousClock.now + limit
        self.limit = limit
        isSpent = { ContinuousClock.now >= deadline }
        expiry = { try await Task.sleep(until: deadline, clock: .continuous) }
    }

    /// A budget that runs out when `expiry` returns: for tests that decide the moment.
    public init(limit: Duration, expiry: @escaping @Sendable () async throws -> Void) {
        self.limit = limit
        isSpent = { false }
        self.expiry = expiry
    }

    /// Whether the deadline has passed.
    public var hasRunOut: Bool { isSpent() }

    /// Returns when the budget runs out; throws `CancellationError` when cancelled first.
    public func waitUntilSpent() async throws {
        try await expiry()
    }
}

// MARK: - BudgetedRefresher

/// A refresher whose calls end when the read budget does: the refresh in flight is
/// cancelled (its requests aborted; pages already applied stay applied) and the
/// repository serves the local store, with `ReadBudgetExceeded` as the refresh's error.
public struct BudgetedRefresher: CollectionRefreshing {
    public let inner: any CollectionRefreshing
    public let budget: ReadBudget

    public init(_ inner: any CollectionRefreshing, budget: ReadBudget) {
        self.inner = inner
        self.budget = budget
    }

    public func refresh(_ collection: CollectionName) async throws -> RefreshSummary {
        guard !budget.hasRunOut else { throw ReadBudgetExceeded(collection: collection, budget: budget.limit) }
        let inner = self.inner, budget = self.budget
        return try await withThrowingTaskGroup(of: RefreshSummary?.self) { group in
            group.addTask { try await inner.refresh(collection) }
            group.addTask {
                try await budget.waitUntilSpent()
                return nil
            }
            // NB: the group waits for the cancelled refresh to unwind before returning,
            // so nothing of it outlives the read (its lock is released, its store
            // transaction finished or rolled back).
            defer { group.cancelAll() }
            guard let first = try await group.next(), let summary = first else {
                throw ReadBudgetExceeded(collection: collection, budget: budget.limit)
            }
            return summary
        }
    }
}

// MARK: - ReadBudgetExceeded

/// A refresh that did not end within the read's budget.
public struct ReadBudgetExceeded: Error, Sendable, Equatable, CustomStringConvertible {
    public let collection: CollectionName
    public let budget: Duration

    public init(collection: CollectionName, budget: Duration) {
        self.collection = collection
        self.budget = budget
    }

    public var description: String {
        let (seconds, attoseconds) = budget.components
        let text = attoseconds == 0 ? "\(seconds) s" : "\(Double(seconds) + Double(attoseconds) / 1e18) s"
        return "no answer within the \(text) a read waits"
    }
}
