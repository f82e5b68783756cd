import Domain
import Foundation
import RecordDTOs
import Storage

// MARK: - CachedCollection

/// What every repository runs on: one collection of one account's store, served from
/// an in-memory copy under a freshness policy, refreshed through the sync engine's
/// `CollectionRefreshing` port, one refresh at a time.
///
/// The store is the source of truth. The in-memory copy (`CollectionSnapshot`) is the
/// decoded whole collection, read from the store when first needed, kept in step with
/// this repository's own edits, and dropped when a refresh changed the store; searches
/// and filters go to the store's indexes instead and are not kept.
///
/// Store calls are synchronous and made on this actor, so a read of the store and the
/// update of the copy are never interleaved with another edit: the only suspension
/// points are waits for a refresh.
actor CachedCollection<Mapping: RecordMapping> {
    typealias Value = Mapping.Value

    let store: ShelfStore
    private let refresher: any CollectionRefreshing
    private let policy: FreshnessPolicy
    private let clock: SyncClock
    private let onEvent: @Sendable (RepositoryEvent) -> Void

    /// The decoded collection; nil until first needed and after a refresh changed it.
    private var snapshot: CollectionSnapshot<Mapping>?
    /// When the last successful refresh made through this repository started.
    private var lastRefresh: Date?
    /// Why the latest refresh failed; nil after a success.
    private var lastRefreshError: (any Error)?
    /// The refresh every read that needs one shares (single flight).
    private var inFlight: Task<RefreshOutcome, Never>?
    /// Reads waiting for `inFlight`, resumed when it ends or when their task is cancelled.
    private var waiters: [Int: CheckedContinuation<RefreshOutcome, any Error>] = [:]
    private var nextWaiter = 0
    /// How the latest refresh ended; nil before the first one ends.
    private var lastOutcome: RefreshOutcome?

    init(store: ShelfStore, refresher: any CollectionRefreshing, configuration: RepositoryConfiguration) {
        self.store = store
        self.refresher = refresher
        self.policy = configuration.policy(for: Mapping.collection)
        self.clock = configuration.clock
        self.onEvent = configuration.onEvent
    }

    var collection: CollectionName { Mapping.collection }

    // MARK: - Reading

    /// The whole collection, in the store's order.
    func all(forceRefresh: Bool) async throws -> CachedResult<[Value]> {
        let freshness = try await freshen(force: forceRefresh)
        let snapshot = try currentSnapshot()
        let hasData = freshness.fetchedAt != nil || !snapshot.values.isEmpty || !snapshot.unreadable.isEmpty
        report(snapshot.unreadable)
        return freshness.result(snapshot.values, unreadable: snapshot.unreadable, hasCachedData: hasData)
    }

    /// One page of the records matching a search and filter, found with the store's
    /// indexes; only the records of the page are decoded.
    /// - Parameters:
    ///   - order: the store sorts, so a limit keeps the first records of that order.
    ///   - countsMatches: count every match even when the page stops at `limit` — a scan
    ///     of the whole index (300 ms at a million records). Without it the page reads one
    ///     record past the limit to know whether more match, and `totalMatches` is nil
    ///     when they do.
    ///   - anchor: only the matches on one side of a position an earlier page gave
    ///     (`QueryPage.first`, `.last`): a seek along the order's index, from which
    ///     `offset` counts. Needs an order that `RecordOrder.canSeek`.
    ///   - reversed: read the order from its end (or backward from a `.before` anchor);
    ///     the page's items still come in the order, and `hasMore` says whether more
    ///     match beyond the page in the direction read (before it).
    func page(
        search: String?, complete: Bool?, limit: Int?, offset: Int, order: RecordOrder = .standard,
        member: MemberEquality? = nil, ids: [String]? = nil, countsMatches: Bool = true,
        anchor: ListAnchor? = nil, reversed: Bool = false, forceRefresh: Bool
    ) async throws -> CachedResult<QueryPage<Value>> {
        let freshness = try await freshen(force: forceRefresh)
        let probesForMore = limit != nil && !countsMatches
        let query = RecordQuery(
            collection, search: search, complete: complete, limit: limit.map { probesForMore ? $0 + 1 : $0 }, offset: offset,
            order: order, member: member, ids: ids, anchor: anchor, reversed: reversed)
        let needsPresence = freshness.fetchedAt == nil
        let (found, total, more, stored) = try store.read { reader in
            var listed: [(record: StoredRecord, position: ListPosition?)] = order.canSeek
                ? try reader.window(query).map { ($0.record, $0.position) } : try reader.records(query).map { ($0, nil) }
            var total: Int?
            var more: Bool?
            if probesForMore, let limit {
                more = listed.count > limit
                listed = Array(listed.prefix(limit))
                // NB: past an anchor, the rows before it are not counted.
                total = more == true || anchor != nil ? nil : offset + listed.count
            } else if query.limit == nil && anchor == nil && (offset == 0 || !listed.isEmpty) {
                // NB: a listing without a limit found every match past the offset, so
                // counting them again would scan the index a second time for nothing.
                total = offset + listed.count
            } else {
                total = try reader.count(query)
            }
            // Whether anything is stored at all, when the page found nothing to say so.
            let stored = needsPresence && listed.isEmpty ? try reader.hasRecords(collection) : !listed.isEmpty
            return (reversed ? Array(listed.reversed()) : listed, total, more, stored)
        }
        let (values, unreadable) = Mapping.decodeAll(found.map(\.record))
        report(unreadable)
        var page = QueryPage(items: values, totalMatches: total, offset: offset, hasMore: more)
        // NB: the edges of what the store listed, read or not: where the next seek starts.
        page.first = found.first?.position
        page.last = found.last?.position
        return freshness.result(page, unreadable: unreadable, hasCachedData: !needsPresence || stored)
    }

    /// The first `limit` matches (all when nil) in `order`, filtered, sorted and cut by
    /// the store's query; a limited slice reads one record past the limit to know whether
    /// more match and counts nothing, an unlimited one also counts the collection (on its
    /// narrowest index) so a screen can say how many of all it shows.
    func slice(
        search: String?, member: MemberEquality? = nil, ids: [String]? = nil, order: RecordOrder, limit: Int?,
        countsCollection: Bool = true, forceRefresh: Bool
    ) async throws -> CachedResult<ListSlice<Value>> {
        let page = try await self.page(
            search: search, complete: nil, limit: limit, offset: 0, order: order, member: member, ids: ids,
            countsMatches: false, forceRefresh: forceRefresh)
        let total = limit == nil && countsCollection ? try count() : nil
        return page.map { ListSlice(items: $0.items, hasMore: $0.hasMore, total: total) }
    }

    /// One value from the store, without asking the server.
    /// - Throws: `RepositoryError.unreadableRecord` when the record does not read.
    func value(id: String) throws -> Value? {
        guard let record = try store.record(collection, id: id) else { return nil }
        return try Mapping.decode(record)
    }

    /// How many live records the store holds, counted on its index, without asking the server.
    func count() throws -> Int {
        try store.count(RecordQuery(collection))
    }

    /// Tells listeners about records a read left out because they do not read.
    private func report(_ unreadable: [UnreadableRecord]) {
        if !unreadable.isEmpty { onEvent(.unreadableRecords(collection, unreadable)) }
    }

    private func currentSnapshot() throws -> CollectionSnapshot<Mapping> {
        if let snapshot { return snapshot }
        let loaded = CollectionSnapshot<Mapping>(records: try store.records(RecordQuery(collection)))
        snapshot = loaded
        return loaded
    }

    // MARK: - Freshness

    /// Applies the policy: answers at once, refreshes behind, or waits for a refresh.
    private func freshen(force: Bool) async throws -> Freshness {
        let fetchedAt = try self.fetchedAt()
        switch policy.decision(fetchedAt: fetchedAt, now: clock.now(), force: force) {
        case .serveCached:
            return Freshness(fetchedAt: fetchedAt, isStale: false, error: lastRefreshError)
        case .serveAndRevalidate:
            if inFlight == nil { startRefresh(background: true) }
            return Freshness(fetchedAt: fetchedAt, isStale: true, error: lastRefreshError)
        case .refreshFirst:
            joinOrStartRefresh()
            let outcome = try await waitForSharedRefresh()
            try Task.checkCancellation()
            let refreshedAt = try self.fetchedAt()
            switch outcome {
            case .success:
                return Freshness(fetchedAt: refreshedAt, isStale: false, error: nil)
            case .failure(let error):
                return Freshness(
                    fetchedAt: refreshedAt, isStale: !policy.isFresh(fetchedAt: refreshedAt, now: clock.now()), error: error)
            }
        }
    }

    /// The later of this repository's last refresh and the last success the sync
    /// engine recorded in the store (possibly from another process).
    private func fetchedAt() throws -> Date? {
        let collection = self.collection
        let synced = try store.read { reader in try reader.syncState(collection).lastSuccess }
        return [lastRefresh, synced].compactMap { $0 }.max()
    }

    private func joinOrStartRefresh() {
        if inFlight != nil {
            onEvent(.refreshJoined(collection))
        } else {
            startRefresh(background: false)
        }
    }

    /// Waits for the refresh in flight to end, or for this read's task to be cancelled.
    ///
    /// A cancelled read stops waiting at once and throws `CancellationError`; the
    /// refresh itself goes on, since other reads may share it.
    private func waitForSharedRefresh() async throws -> RefreshOutcome {
        let id = nextWaiter
        nextWaiter += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // NB: this runs on the actor before the read suspends, while the refresh
                // it joined is still in flight (it can only end on the actor).
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: Int) {
        waiters.removeValue(forKey: id)?.resume(throwing: CancellationError())
    }

    /// Starts the one refresh of this collection. The task belongs to this actor: it
    /// keeps running when the read that started it is cancelled or returns, and ends
    /// by bringing the in-memory copy in line with the store.
    @discardableResult
    private func startRefresh(background: Bool) -> Task<RefreshOutcome, Never> {
        let refresher = self.refresher
        let collection = self.collection
        let startedAt = clock.now()
        onEvent(.refreshStarted(collection, background: background))
        let task = Task(priority: background ? .utility : nil) {
            let outcome: RefreshOutcome
            do {
                outcome = .success(try await refresher.refresh(collection))
            } catch {
                outcome = .failure(error)
            }
            // NB: the task runs on this actor (it uses `self`); only the refresher's call leaves it.
            self.finishRefresh(outcome, startedAt: startedAt)
            return outcome
        }
        inFlight = task
        return task
    }

    private func finishRefresh(_ outcome: RefreshOutcome, startedAt: Date) {
        inFlight = nil
        lastOutcome = outcome
        defer {
            let waiting = waiters.values
            waiters.removeAll()
            for waiter in waiting { waiter.resume(returning: outcome) }
        }
        switch outcome {
        case .success(let summary):
            // The data is as of the moment the refresh started.
            lastRefresh = max(lastRefresh ?? startedAt, startedAt)
            lastRefreshError = nil
            if summary.changedRecords != 0 { snapshot = nil }
        case .failure(let error):
            // NB: a refresh can apply some pages before it fails; read the store again.
            snapshot = nil
            if !(error is CancellationError) { lastRefreshError = error }
        }
        let succeeded = if case .success = outcome { true } else { false }
        onEvent(.refreshFinished(collection, succeeded: succeeded))
    }

    // MARK: - Background work

    /// Waits for the refresh in flight, if any — e.g. the one a stale-while-revalidate
    /// read started — and returns how the latest refresh ended (nil when none has run).
    /// After it returns, reads see that refresh's data.
    ///
    /// A refresh that ended before this call is reported the same way as one it waited
    /// for, so a caller (a test, the CLI before it exits) need not know which it was.
    func waitForRefresh() async -> RefreshOutcome? {
        if let inFlight { return await inFlight.value }
        return lastOutcome
    }

    /// Cancels the refresh in flight, if any (e.g. when the reader leaves the account).
    func cancelRefresh() {
        inFlight?.cancel()
    }

    /// Forgets the in-memory copy: the next read decodes the store again. For whoever
    /// changed the store behind this repository's back (a sync run of the engine).
    func invalidate() {
        snapshot = nil
    }
}

// MARK: - Local edits

extension CachedCollection where Mapping.DTO: WritableRecordDTO {
    /// Writes a value to the store — record, outbox entry and the operation the history
    /// records for it (`ShelfStore.edit`), in one transaction — and
    /// puts it into the in-memory copy.
    /// - Throws: `RepositoryError.notFound` (`.update`), `.idInUse` (`.create`),
    ///   `.unreadableRecord` when the stored JSON cannot carry its other fields over,
    ///   `StorageError`.
    func save(_ value: Value, as kind: SaveKind) throws {
        let collection = self.collection
        let id = value.id
        let dto = Mapping.DTO(value)
        try store.edit { transaction in
            let existing = try transaction.record(collection, id: id, includingDeleted: true)
            let isLive = existing.map { !$0.isDeleted } ?? false
            switch kind {
            case .create where isLive: throw RepositoryError.idInUse(collection, id: id)
            case .update where !isLive: throw RepositoryError.notFound(collection, id: id)
            default: break
            }
            try transaction.saveLocal(collection, id: id, json: try WireEncoding.encode(dto, over: existing?.json))
        }
        snapshot?.upsert(value)
    }

    /// Deletes a record in the store — hidden row, outbox entry and operation in one
    /// transaction (`ShelfStore.edit`) —
    /// and from the in-memory copy.
    /// - Parameter mustExist: throw `RepositoryError.notFound` when there is no such
    ///   record; otherwise deleting a missing record does nothing.
    func delete(id: String, mustExist: Bool) throws {
        let collection = self.collection
        try store.edit { transaction in
            guard try transaction.record(collection, id: id) != nil else {
                if mustExist { throw RepositoryError.notFound(collection, id: id) }
                return
            }
            try transaction.deleteLocal(collection, id: id)
        }
        snapshot?.remove(id: id)
    }
}

/// What a save expects to find.
enum SaveKind: Sendable {
    /// A new record: its id must not be in use.
    case create
    /// A change to a record that exists.
    case update
    /// Either (a cart line is set whether or not it was there).
    case upsert
}

// MARK: - Freshness

/// How current the data of one read is, before the data itself is read.
private struct Freshness: Sendable {
    var fetchedAt: Date?
    var isStale: Bool
    var error: (any Error)?

    func result<Value>(_ value: Value, unreadable: [UnreadableRecord], hasCachedData: Bool) -> CachedResult<Value> {
        CachedResult(
            value: value, fetchedAt: fetchedAt, isStale: isStale, refreshError: error,
            unreadable: unreadable, hasCachedData: hasCachedData
        )
    }
}
