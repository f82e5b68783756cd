import Synchronization

// MARK: - BulkLoad

/// A first pull of a large collection, loaded without the records' id index
/// (`IdentityIndex`) and with it built once, from all the records, by its last page.
///
/// One per collection pull, kept by the sync engine across that pull's page
/// transactions (`ShelfStore.write(bulkLoad:_:)`); it lives in memory for that pull only.
/// A load starts with a large page that has more pages after it, into a store that
/// holds fewer records than the page brings and none of the collection, with no waiting
/// change and no tombstone; it goes on while pages stay like that, and ends — the index
/// built — with the last page, with the first page that is not like that, or with an id
/// the load inserted already (a record changed on the server during the pull comes
/// again, later, in its newer version). Another writer (a `shelf` edit) builds the index
/// before it writes, which ends the load as well: its next page finds the index there.
///
/// Without the index nothing stops a second row with the same id, so the load remembers
/// a hash of every id it inserts (8 bytes each, about 16 MB at a million records); two
/// ids with one hash only end the load early.
public final class BulkLoad: Sendable {
    private struct State {
        var isLoading = false
        /// Hashes of the ids inserted since the load started.
        var ids: Set<Int> = []
        /// Hashes added in the open transaction, taken back when it rolls back.
        var addedInTransaction: [Int] = []
        var wasLoading = false
    }

    // NB: a pull uses its load from one task at a time; the lock makes it Sendable, so
    // a transaction can carry it beside the connection. Uncontended, it is cheap: `insert`
    // was under 1% of a 100,000-record first sync's samples (perf).
    private let state = Mutex(State())

    public init() {}

    /// Whether the pull's pages go in without the id index.
    public var isLoading: Bool { state.withLock { $0.isLoading } }

    // MARK: Load

    /// The collection is empty and its first large page goes in without the index.
    func start() {
        state.withLock { state in
            state.isLoading = true
            state.ids.removeAll(keepingCapacity: true)
            state.addedInTransaction.removeAll()
        }
    }

    /// The index is back: later pages are upserted.
    func stop() {
        state.withLock { $0.isLoading = false }
    }

    /// Notes an id about to be inserted. - Returns: false when it may have been inserted
    /// already (its hash was), and the row must be upserted instead.
    func insert(_ id: String) -> Bool {
        var hasher = Hasher()
        hasher.combine(id)
        let hash = hasher.finalize()
        return state.withLock { state in
            guard state.ids.insert(hash).inserted else { return false }
            state.addedInTransaction.append(hash)
            return true
        }
    }

    /// Whether `id` may have been inserted by this load (its hash was): false means it
    /// certainly was not, so a look-up of it can be spared while the id index is out.
    func mayHaveInserted(_ id: String) -> Bool {
        var hasher = Hasher()
        hasher.combine(id)
        let hash = hasher.finalize()
        return state.withLock { $0.ids.contains(hash) }
    }

    // MARK: Transactions

    func transactionBegan() {
        state.withLock { state in
            state.wasLoading = state.isLoading
            state.addedInTransaction.removeAll(keepingCapacity: true)
        }
    }

    func transactionCommitted() {
        state.withLock { $0.addedInTransaction.removeAll(keepingCapacity: true) }
    }

    /// What the rolled-back transaction did to the store is undone, so is what it noted.
    func transactionRolledBack() {
        state.withLock { state in
            for hash in state.addedInTransaction { state.ids.remove(hash) }
            state.addedInTransaction.removeAll(keepingCapacity: true)
            state.isLoading = state.wasLoading
        }
    }
}
