import Domain
import Foundation
import Records
import Services
import Storage

// MARK: - Reconciliation

/// The backstop behind `CommitWindow`: a collection's ids and timestamps compared with
/// the server's whole list, and every difference pulled.
///
/// The window catches every record whose write transaction stayed open less than its
/// width. A longer one — a stalled worker, a server that holds transactions open, a
/// clock that jumped — can still commit a record behind the settled stamp. The list
/// with `_fields=id,last_modified,deleted` and `_since=0` (tombstones included) names
/// every record the server has and its version, at about 75 bytes a record (a UUID id
/// and a 13-digit stamp; measured: 74 MB for 1M records); a record
/// the store lacks, or holds in an older version, is fetched by id and applied like any
/// pulled change (merged with a waiting edit, a remembered deletion deleted again); a
/// tombstone of a record the store still holds is applied as it is.
///
/// It runs when `SyncOptions.reconciliationInterval` has passed since the last one
/// (a day by default), or when asked (`--reconcile`). A first pull, which lists the
/// whole collection, counts as one. Only records stamped at or behind the cursor are
/// its business: later ones are the next pull's. Records this store holds that the
/// server lists neither live nor deleted are counted and reported, not acted on: a
/// server that lost a collection is `ServerForgetting`'s to notice.
extension SyncRun {
    /// Reconciles every collection that is due, each failing alone.
    func reconcileDue() async throws {
        let states = try store.read { reader in try options.collections.map { try reader.syncState($0) } }
        for state in states where isReconciliationDue(state) && unavailable[state.collection] == nil {
            guard !stopsForBackoff else { return }
            try await isolating(state.collection) { try await reconcile(state.collection) }
        }
    }

    /// Whether `state`'s collection is to be reconciled this run: synced before, not
    /// recovering, and asked for or last reconciled longer ago than the interval.
    func isReconciliationDue(_ state: SyncState) -> Bool {
        guard state.cursor != nil, !state.recovering, state.lastSuccess != nil else { return false }
        if options.reconcilesNow { return true }
        guard let interval = options.reconciliationInterval, let last = state.lastReconciled else { return false }
        return now.timeIntervalSince(last) >= interval
    }

    /// Lists the collection's ids and versions, then pulls what differs.
    ///
    /// NB: the attempt is recorded before it starts: one that the run's budget cuts short
    /// (a very large collection on a slow server) is tried again after the interval, not
    /// at every run; what it applied stays applied.
    func reconcile(_ collection: CollectionName) async throws {
        let started = ContinuousClock.now
        let at = now
        guard let cursor = try store.read({ reader in try reader.syncState(collection).cursor }) else { return }
        try store.write { tx in try tx.updateSyncState(collection) { $0.lastReconciled = at } }
        let service = KintoCollectionService(client: engine.client, collection: collection)
        var found = ReconciliationReport()
        var differing = ReconciliationDifferences()
        var guardrail = PagingGuard(collection: collection, cursor: nil)
        let query = ListQuery(since: 0, limit: options.pageSize, sort: ["last_modified"], fields: Self.versionFields)
        var page: RecordPage? = try await withRetries("reconcile \(collection.rawValue)") { try await service.firstPage(query).page }
        found.requests += 1
        while let current = page {
            noteBackoff(current.backoff)
            try guardrail.check(current)
            try countPage()
            try store.read { reader in try differing.compare(current.records, behind: cursor, in: collection, reader) }
            found.listed += current.records.count
            found.listedBytes += current.records.reduce(0) { $0 + $1.json.count }
            guard let next = current.next.url else { break }
            page = try await withRetries("reconcile \(collection.rawValue)") { try await service.page(at: next) }
            found.requests += 1
        }
        let known = try store.read { reader in try reader.serverKnownCount(collection) }
        found.absent = max(0, known - differing.matched.count)
        // NB: the listed tombstones are Kinto's: on an encrypted account no key vouches for them.
        found.deleted = try applyReconciled(differing.tombstones, to: collection, gate: integrityGate(for: WireSealing.Opened(), in: collection))
        for chunk in differing.missing.chunked(into: Self.idsPerRequest) {
            let fetchQuery = ListQuery(since: 0, sort: ["last_modified"], ids: chunk)
            let fetched = try await withRetries("reconcile \(collection.rawValue)") { try await service.firstPage(fetchQuery).page }
            found.requests += 1
            // NB: a record changed since it was listed is past the cursor: the next pull's.
            let readable = try opened(fetched?.records ?? [], of: collection)
            let behind = readable.records.filter { $0.lastModified <= cursor }
            found.fetched += behind.count
            found.deleted += try applyReconciled(behind, to: collection, gate: readable.gate)
        }
        found.durationMilliseconds = milliseconds(since: started)
        // NB: the run's `requests` already counted each of them (`withRetries`).
        collectionReport(collection) {
            $0.reconciliation = found
            $0.late += found.fetched + found.deleted
            $0.pulled += found.fetched
            $0.deletedLocally += found.deleted
        }
        emit(.reconciled(collection, found))
    }

    /// Applies records reconciliation found, without moving the cursor, in one
    /// transaction, through the same rules as a pull (`gate`, on an encrypted account);
    /// returns how many were tombstones applied.
    private func applyReconciled(_ records: [RawRecord], to collection: CollectionName, gate: IntegrityGate?) throws -> Int {
        guard !records.isEmpty else { return 0 }
        let merger = MergeApplier(policy: options.policy, now: now)
        let (applied, deleted, refusals) = try store.write { tx in
            let cursor = try tx.syncState(collection).cursor ?? .max
            var incoming = try Self.droppingHeldVersions(records, behind: cursor, in: collection, tx).records
            let admission = try gate.map { gate in try gate.admit(incoming, in: collection, tx) }
            if let admission { incoming = admission.admitted }
            let applied = try Self.applyPulled(incoming, to: collection, recovering: false, merger: merger, tx)
            if let admission { try settle(admission, in: collection, tx) }
            return (applied: applied, deleted: incoming.filter(\.isDeleted).count, refusals: admission?.refusals ?? [])
        }
        noteRefusals(refusals, in: collection)
        noteOverwritten(applied.overwritten, in: collection)
        record(applied.merges, in: collection)
        return deleted
    }

    /// The members a reconciliation lists: a record's version, and whether it is a tombstone.
    static let versionFields = ["id", "last_modified", "deleted"]

    /// Ids per `in_id` request: ~40 bytes each keeps the URL near 2 KB, under every
    /// proxy's limit.
    static let idsPerRequest = 50
}

// MARK: - ReconciliationDifferences

/// What a reconciliation found so far, page after page of the server's list.
struct ReconciliationDifferences {
    /// Ids the server has live in a version this store lacks (stamped behind the cursor).
    var missing: [String] = []
    /// Tombstones of records this store still holds an older version of.
    var tombstones: [RawRecord] = []
    /// Listed records this store holds a server version of, by id's hash: a record
    /// changed during the listing is listed twice and counted once.
    var matched: Set<Int> = []

    mutating func compare(
        _ listed: [RawRecord], behind cursor: Int64, in collection: CollectionName, _ reader: StoreReader
    ) throws {
        let held = try reader.serverStamps(collection, ids: listed.map(\.id))
        for entry in listed {
            let stamp = held[entry.id]
            if stamp != nil { matched.insert(entry.id.hashValue) }
            guard entry.lastModified <= cursor, (stamp ?? .min) < entry.lastModified else { continue }
            if entry.isDeleted {
                if stamp != nil { tombstones.append(entry) }
            } else {
                missing.append(entry.id)
            }
        }
    }
}

// MARK: - ReconciliationReport

/// What one reconciliation of a collection found and cost.
public struct ReconciliationReport: Sendable, Equatable, Codable {
    /// Entries the server listed (records and tombstones).
    public var listed = 0
    /// Bytes of those entries, as listed.
    public var listedBytes = 0
    /// Records pulled because the store lacked that version.
    public var fetched = 0
    /// Tombstones applied: records the server had deleted that the store still held.
    public var deleted = 0
    /// Records this store holds a server version of that the server lists neither live
    /// nor deleted.
    public var absent = 0
    /// HTTP requests it made.
    public var requests = 0
    public var durationMilliseconds = 0

    public init() {}

    enum CodingKeys: String, CodingKey {
        case listed, fetched, deleted, absent, requests
        case listedBytes = "listed_bytes"
        case durationMilliseconds = "duration_ms"
    }
}

// MARK: - Chunks

extension Array {
    /// Consecutive slices of at most `size` elements.
    func chunked(into size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
