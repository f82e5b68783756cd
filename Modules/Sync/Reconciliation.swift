import Domain
import Foundation
import Records
import Services
import Storage

// MARK: - Reconciliation

/// The backstop behind `CommitWindow`: a collection's records compared with the server's,
/// range of stamps by range, and every difference pulled.
///
/// The window catches every record whose write transaction stayed open less than its
/// width. A longer one — a stalled worker, a server that holds transactions open, a clock
/// that jumped — can still commit a record behind the settled stamp. A reconciliation
/// (`ReconciliationPass`) lists the records stamped since the last one (ids, stamps and
/// tombstones, ~75 bytes each) and one sweep slice of the older ones, and compares counts
/// of the rest, range by range, listing only ranges whose counts differ. A record the
/// store lacks, or holds in an older version, is fetched by id and applied like any pulled
/// change (merged with a waiting edit, a remembered deletion deleted again); a tombstone of
/// a record the store still holds is applied as it is. So it costs what differs, not the
/// size of the library: one `POST /batch` for an unchanged one.
///
/// It runs when `SyncOptions.reconciliationInterval` has passed since the last complete
/// one (a day by default), when asked (`--reconcile`), and at every run while one is under
/// way: a run cut short stores how far it compared (`SyncState.reconcilingFrom`) and the
/// next continues from there. A first pull, which lists the whole collection, counts as
/// one. Only records stamped at or behind the cursor are its business: later ones are the
/// next pull's. Records this store holds that the server has neither live nor deleted are
/// counted and reported, not acted on: a server that lost a collection is
/// `ServerForgetting`'s to notice.
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
    /// recovering, and asked for, under way, or last reconciled longer ago than the interval.
    func isReconciliationDue(_ state: SyncState) -> Bool {
        guard state.cursor != nil, !state.recovering, state.lastSuccess != nil else { return false }
        if options.reconcilesNow || options.reconcilesWhole || state.reconcilingFrom != nil { return true }
        guard let interval = options.reconciliationInterval else { return false }
        guard let last = state.lastReconciled else { return true }
        return now.timeIntervalSince(last) >= interval
    }

    /// Compares the collection with the server up to its cursor, range by range, and pulls
    /// what differs; continues the pass a run cut short.
    ///
    /// NB: how far it got is stored after every round, together with what the round
    /// applied: a run that the budget cuts short keeps both, and the next run continues.
    func reconcile(_ collection: CollectionName) async throws {
        let started = ContinuousClock.now
        let shape = options.reconciliation
        let prepared = try store.write { tx -> ReconciliationPass? in
            var state = try tx.syncState(collection)
            guard let cursor = state.cursor else { return nil }
            // NB: for this pass only: one cut short continues as ranges, from where it stopped.
            if options.reconcilesWhole { (state.reconciledThrough, state.reconcilingFrom) = (nil, nil) }
            try tx.prepareStampRanges()
            let records = try tx.serverLiveCount(collection, in: StampRange(after: 0, through: cursor))
            let slice = shape.sweepSize(records: records)
            let pass = try ReconciliationPass(
                state, cursor: cursor, shape: shape,
                sweepEnd: { start in try tx.stamp(collection, after: start, skipping: slice - 1) },
                boundaries: { range in
                    let parts = shape.firstCut(records: try tx.serverLiveCount(collection, in: range))
                    return try tx.stampBoundaries(collection, in: range, parts: parts)
                })
            try tx.updateSyncState(collection) { $0.reconcilingFrom = pass.comparedThrough }
            return pass
        }
        guard var pass = prepared else { return }
        var found = ReconciliationReport()
        // NB: the user's bucket by its id spares Kinto's default-bucket plugin for every count
        // and listing, as in the idle run; a refusal sends the round again through the alias.
        var bucket = options.userBucket
        while !pass.isComplete {
            let round = pass.nextRound(limit: options.batchSize)
            let remaining = try await compare(round, of: collection, in: pass, bucket: &bucket, found: &found)
            pass.answered(round, leaving: remaining)
            let through = pass.comparedThrough
            try store.write { tx in try tx.updateSyncState(collection) { $0.reconcilingFrom = through } }
            try honourBackoff()
        }
        let (at, end, sweep) = (now, pass.end, pass.nextSweepStart)
        try store.write { tx in
            try tx.updateSyncState(collection) { state in
                state.reconcilingFrom = nil
                state.reconciledThrough = end
                state.sweptThrough = sweep
                state.lastReconciled = at
            }
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

    // MARK: A round

    /// Asks the server about one round of ranges in one `POST /batch` — a count for each
    /// range to count, a listing of each to list — and applies what the listings show.
    /// - Returns: what each range leaves to compare, in order.
    /// - Parameter bucket: the user's bucket id to name, nil for Kinto's `default` alias; set
    ///   to nil when the server refused a path through it.
    private func compare(
        _ round: [RangeCheck], of collection: CollectionName, in pass: ReconciliationPass, bucket: inout String?,
        found: inout ReconciliationReport
    ) async throws -> [[RangeCheck]] {
        let locals = try store.read { reader in
            try round.map { check in check.way == .count ? try reader.serverLiveCount(collection, in: check.range) : 0 }
        }
        let batch = KintoBatchService(client: engine.client, maximumRequests: options.batchSize)
        let operations = operationsAsking(round, of: KintoCollectionPath(collection, userBucket: bucket))
        var results = try await withRetries("reconcile \(collection.rawValue)") { try await batch.send(operations) }
        found.requests += 1
        if bucket != nil, results.contains(where: { $0.status == 403 || $0.status == 404 }) {
            bucket = nil
            let throughAlias = operationsAsking(round, of: KintoCollectionPath(collection))
            results = try await withRetries("reconcile \(collection.rawValue)") { try await batch.send(throughAlias) }
            found.requests += 1
        }
        var remaining: [[RangeCheck]] = []
        var differences = ReconciliationDifferences()
        for (check, (result, local)) in zip(round, zip(results, locals)) {
            noteBackoff(result.backoff)
            if let error = result.error { throw error }
            switch check.way {
            case .count:
                found.rangesCounted += 1
                remaining.append(try counted(check, local: local, server: result.totalObjects, of: collection, in: pass, found: &found))
            case .list:
                try countPage()
                found.rangesListed += 1
                guard case .page(let page) = try result.page() else {
                    remaining.append([])
                    continue
                }
                let listed = ReconciliationPass.listed(
                    check, highest: page.records.map(\.lastModified).max(), morePagesFollow: page.next.morePagesFollow)
                try store.read { reader in
                    let held = try reader.serverVersions(collection, in: listed.covered)
                    let known = try reader.serverStamps(collection, ids: page.records.map(\.id))
                    differences.compare(page.records, covering: listed.covered, held: held, known: known, end: pass.end)
                }
                remaining.append(listed.rest.map { [$0] } ?? [])
            }
        }
        found.listed += differences.listed
        found.listedBytes += differences.listedBytes
        try await pullDifferences(differences, of: collection, end: pass.end, found: &found)
        return remaining
    }

    /// A count of each range to count, a listing (ids, stamps, tombstones) of each to list,
    /// the listings sharing one page's worth of records.
    private func operationsAsking(_ round: [RangeCheck], of path: KintoCollectionPath) -> [KintoRequest] {
        let lists = round.count { $0.way == .list }
        let listLimit = max(1, options.pageSize / max(1, lists))
        return round.map { check in
            let query = ListQuery(since: Int(check.range.after), before: Int(check.range.before))
            switch check.way {
            case .count:
                return KintoRequest.count(in: path, query: query)
            case .list:
                var list = query
                (list.limit, list.sort, list.fields) = (listLimit, ["last_modified"], Self.versionFields)
                return KintoRequest.list(in: path, query: list)
            }
        }
    }

    /// What a counted range leaves: nothing when the counts agree, else itself to list, or
    /// the ranges it is cut into (at this store's records, `fanOut` parts).
    private func counted(
        _ check: RangeCheck, local: Int, server: Int?, of collection: CollectionName, in pass: ReconciliationPass,
        found: inout ReconciliationReport
    ) throws -> [RangeCheck] {
        switch pass.verdict(on: check, local: local, server: server) {
        case .agrees:
            return []
        case .list:
            found.rangesDiffering += server == nil ? 0 : 1
            return [RangeCheck(range: check.range, way: .list, depth: check.depth)]
        case .cut:
            found.rangesDiffering += 1
            let boundaries = try store.read { reader in
                try reader.stampBoundaries(collection, in: check.range, parts: pass.shape.fanOut)
            }
            return pass.cut(check, at: boundaries)
        }
    }

    /// Looks up the unlisted records by id, then applies the tombstones and fetches and
    /// applies the missing records.
    private func pullDifferences(
        _ listed: ReconciliationDifferences, of collection: CollectionName, end: Int64, found: inout ReconciliationReport
    ) async throws {
        var differences = listed
        let asked = differences.unlisted
        differences.unlisted = [:]
        if !asked.isEmpty {
            let lookup = ListQuery(since: 0, sort: ["last_modified"], fields: Self.versionFields)
            let answered = try await byID(Array(asked.keys).sorted(), lookup, of: collection, found: &found)
            found.absent += differences.resolve(answered, asked: asked, end: end)
        }
        // NB: the listed tombstones are Kinto's: on an encrypted account no key vouches for them.
        found.deleted += try applyReconciled(differences.tombstones, to: collection, gate: integrityGate(for: WireSealing.Opened(), in: collection))
        let wanted = differences.missing + differences.wentBack
        guard !wanted.isEmpty else { return }
        let fetched = try await byID(wanted, ListQuery(since: 0, sort: ["last_modified"]), of: collection, found: &found)
        // NB: a record changed since it was listed is past the end: the next pull's.
        let readable = try opened(fetched, of: collection)
        let behind = readable.records.filter { $0.lastModified <= end }
        let wentBack = Set(differences.wentBack)
        found.fetched += behind.filter { !$0.isDeleted && !wentBack.contains($0.id) }.count
        found.deleted += try applyReconciled(behind.filter { !wentBack.contains($0.id) }, to: collection, gate: readable.gate)
        found.wentBack += try putBack(behind.filter { wentBack.contains($0.id) }, in: collection, gate: readable.gate)
    }

    /// Records the server holds an older version of than this store knows (its stamp is
    /// lower: the database was restored, or written behind Kinto's API). On an encrypted
    /// account the integrity gate judges them as a pulled page's (refused, reported, the
    /// device's version put back); on any account the store's version is kept and queued
    /// over the server's, as a recovery pull does. A change waiting for the record goes
    /// over it as it is and meets the older version as a conflict would.
    /// - Returns: how many went back: refused by the gate (put back, or a waiting change
    ///   aimed over them), or queued over the server's version.
    private func putBack(_ records: [RawRecord], in collection: CollectionName, gate: IntegrityGate?) throws -> Int {
        guard !records.isEmpty else { return 0 }
        let (queued, refusals) = try store.write { tx in
            var admitted = records
            var refusals: [IntegrityRefusal] = []
            var queued = 0
            if let gate {
                let admission = try gate.admit(records, in: collection, tx)
                refusals = admission.refusals
                queued += refusals.count
                admitted = admission.admitted
            }
            let rules = SyncRules(tx)
            for record in admitted where try rules.keepNewerLocalVersion(record, in: collection) { queued += 1 }
            return (queued, refusals)
        }
        noteRefusals(refusals, in: collection)
        return queued
    }

    /// The records with these ids as `query` asks for them, `idsPerRequest` ids a GET, the
    /// GETs in `POST /batch`es.
    ///
    /// NB: a server whose pages are smaller than a look-up (its `paginate_by` under
    /// `idsPerRequest`) answers it in several pages: the rest is read through the run's
    /// paging loop (`readPages`), never left out, or records the server has would be
    /// counted absent and never fetched.
    private func byID(
        _ ids: [String], _ query: ListQuery, of collection: CollectionName, found: inout ReconciliationReport
    ) async throws -> [RawRecord] {
        let service = KintoCollectionService(client: engine.client, collection: collection)
        let lookups = ids.chunked(into: Self.idsPerRequest).map { chunk in
            var byID = query
            byID.ids = chunk
            return byID
        }
        let batch = KintoBatchService(client: engine.client, maximumRequests: options.batchSize)
        var records: [RawRecord] = []
        for calls in lookups.chunked(into: options.batchSize) {
            let operations = calls.map { KintoRequest.list(in: service.path, query: $0) }
            let results = try await withRetries("reconcile \(collection.rawValue)") { try await batch.send(operations) }
            found.requests += 1
            for (lookup, result) in zip(calls, results) {
                noteBackoff(result.backoff)
                guard case .page(let page) = try result.page(indexingFor: collection) else { continue }
                guard page.next.morePagesFollow else {
                    records += page.records
                    continue
                }
                let requestsBefore = report.requests
                try await readRest(of: lookup, from: page, service: service) { records += $0.records }
                found.requests += report.requests - requestsBefore
            }
        }
        return records
    }

    /// Reads a look-up by id whose answer came in several pages, its first page included.
    private func readRest(
        of lookup: ListQuery, from first: RecordPage, service: KintoCollectionService, take: (RecordPage) -> Void
    ) async throws {
        let ahead = PageFetchAhead(service: service, maximumRequests: max(0, options.maximumPages - pagesPulled))
        let guardrail = PagingGuard(listing: service, since: lookup.since.map(Int64.init))
        try await readPages(from: first, guardrail: guardrail, ahead: ahead) { highest in
            var rest = lookup
            rest.since = highest.map { Int(clamping: $0) } ?? lookup.since
            let what = "reconcile \(service.path.collection)"
            return try await withRetries(what) { try await service.firstPage(rest, onNextPage: ahead.onNextPage) }.page
        } take: { page in
            take(page)
        }
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
    /// Records the server holds an older version of than this store had seen (a restored
    /// database, or one written behind Kinto's API): the store's version goes back.
    public var wentBack = 0
    /// HTTP requests it made.
    public var requests = 0
    /// Ranges of stamps whose counts were compared, and those of them that differed.
    public var rangesCounted = 0
    public var rangesDiffering = 0
    /// Ranges listed whole (a page each).
    public var rangesListed = 0
    public var durationMilliseconds = 0

    public init() {}

    enum CodingKeys: String, CodingKey {
        case listed, fetched, deleted, absent, requests
        case wentBack = "went_back"
        case listedBytes = "listed_bytes"
        case rangesCounted = "ranges_counted"
        case rangesDiffering = "ranges_differing"
        case rangesListed = "ranges_listed"
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
