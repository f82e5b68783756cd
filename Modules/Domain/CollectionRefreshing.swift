// MARK: - CollectionRefreshing

/// Brings one collection of the account's local store up to date with the server.
///
/// Repositories decide *when* to go to the network (their `FreshnessPolicy`); they
/// never pull themselves, because a pulled record must be merged with the reader's
/// waiting local edits, and that is the sync engine's job. The sync engine implements
/// this port; a repository calls it, then reads the store again. It is declared here,
/// with the other ports, so that neither of the two modules imports the other.
///
/// What an implementation does for one call:
/// - pulls the collection into the same store the repository reads (`_since` the
///   stored cursor, page by page, merging with pending local changes);
/// - for `.products`, the shared read-only catalog, makes the request conditional
///   (`If-None-Match` with the ETag kept in the collection's `SyncState`), so an
///   unchanged catalog costs one 304 and returns `RefreshSummary.unchanged` — from the
///   repository's side it is the same call;
/// - on success, records `SyncState.lastSuccess` for the collection: repositories read
///   it, so a refresh made by another process (the cron worker, an earlier CLI run)
///   counts towards freshness too;
/// - throws what went wrong (offline, throttled, unauthorised…), typed by the
///   implementation. The repository keeps serving the local data with that error.
///
/// Calls for one collection never overlap from one repository: it shares a single call
/// among all reads that need it (single flight). Calls for different collections may.
public protocol CollectionRefreshing: Sendable {
    /// Refreshes `collection` in the local store.
    /// - Returns: what changed, so the repository knows whether to read the store again.
    /// - Throws: the implementation's error; `CancellationError` when cancelled.
    func refresh(_ collection: CollectionName) async throws -> RefreshSummary
}

// MARK: - RefreshSummary

/// What a refresh changed in the local store.
public struct RefreshSummary: Hashable, Sendable {
    /// Records written, deleted or merged in the store by this refresh. Zero lets the
    /// repository keep its in-memory copy as it is; anything else makes it read the
    /// store again on the next read.
    public var changedRecords: Int

    public init(changedRecords: Int) {
        self.changedRecords = changedRecords
    }

    /// Nothing changed (e.g. the server answered 304 Not Modified).
    public static let unchanged = RefreshSummary(changedRecords: 0)
}
