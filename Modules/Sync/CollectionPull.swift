import Domain
import Foundation
import Records
import Services
import Storage

// MARK: - Pull

extension SyncRun {
    /// Pulls every collection's changes.
    ///
    /// When every collection has been pulled before (or refused by the server at its
    /// last try), one `POST /batch` carries a `_since=<cursor>` GET per collection: an
    /// up-to-date store costs one round trip (every list comes back empty), and a changed
    /// collection's first page arrives in the same answer.
    ///
    /// NB: the sub-requests carry no `If-None-Match`: Kinto 26.5.0 answers a batch whose
    /// sub-response is a 304 with a 500 (it cannot serialise the empty 304 body). An
    /// empty `_since` list says "nothing changed" just as well, tombstones included.
    ///
    /// A collection the server refuses for good (403/404) is that collection's outcome
    /// only (`isolating`): the others are pulled all the same. A read-only server gets
    /// no batch (it refuses every POST), only GETs.
    func pullAll() async throws {
        // NB: a collection left alone from the start (no key for an encrypted account) is not asked for.
        let collections = options.collections.filter { unavailable[$0] == nil }
        guard !collections.isEmpty else { return }
        let states = try store.read { reader in try collections.map { try reader.syncState($0) } }
        // NB: a collection the server refused at its last try (a Kinto without the shop
        // catalog answers 403 for it, run after run) goes in the batch too: its refusal
        // comes back as that sub-request's answer, and an idle run stays one request.
        guard states.count > 1, states.allSatisfy({ $0.lastSuccess != nil || $0.wasRefused }), !options.serverIsReadOnly else {
            // NB: a device in the clear asks for the keyring only in the batch below, where
            // it costs no round trip: one that has not synced every collection yet learns
            // of encryption from the sealed records it pulls, and what it pushed in the
            // clear meanwhile goes up again sealed when it joins. An encrypted one always
            // asks, before it takes anything.
            if sealing.isSealed { try await readKeyring() }
            try await pullOneByOne(states)
            await learnCollectionTimestamps(states)
            return
        }
        // NB: on a server that keeps the bucket's history, an idle run reads it instead of
        // every collection (`HistoryGate`); news, or no reading yet, is an ordinary run.
        let history = try historyPlan(states)
        var historyRead: BucketHistoryRead?
        if case .ask(let bucket, let reading) = history {
            switch try await checkHistory(bucket: bucket, reading: reading, states: states) {
            case .quiet:
                try honourBackoff()
                return
            case .news(let read):
                historyRead = read
            }
        }
        let asksForKeyring = self.asksForKeyring
        let checksMemory = checksServerMemory(states)
        let establishing = historyRead == nil ? history.establishing : nil
        let batch = KintoBatchService(client: engine.client, maximumRequests: options.batchSize)
        var sentAt = now
        var results = try await withRetries("check \(states.count) collections for changes") {
            try await batch.send(try changeChecks(states, inBucket: options.userBucket, asksForKeyring: asksForKeyring, checksMemory: checksMemory, establishing: establishing))
        }
        if let establishing, !results.isEmpty {
            historyRead = BucketHistoryRead(bucket: establishing, page: try? results.removeFirst().bucketHistory())
        }
        if options.userBucket != nil, Self.bucketRefused(results, states: states, checksMemory: checksMemory) {
            // NB: a collection deleted on the server (or a bucket id that is no longer this
            // user's): asked again through the `default` alias, which creates what is missing.
            sentAt = now
            results = try await withRetries("check \(states.count) collections for changes") {
                try await batch.send(try changeChecks(states, inBucket: nil, asksForKeyring: asksForKeyring, checksMemory: checksMemory, establishing: nil))
            }
        }
        let answers = zip(states, results.prefix(states.count)).map { state, result in
            Result { () throws(APIError) in try result.page(indexingFor: state.collection) }
        }
        if asksForKeyring, results.count > states.count { try await noteKeyring(results[states.count]) }
        let forgotten = try await noticeForgetting(
            states, pulls: answers, listing: checksMemory ? results.last?.collectionTimestamps() : nil)
        for (state, (result, answer)) in zip(states, zip(results, answers)) {
            try await takeCheck(state, result: result, answer: answer, sentAt: sentAt, forgotten: forgotten)
        }
        if let historyRead { try keepHistory(after: historyRead) }
        try honourBackoff()
    }

    /// What one collection's sub-request of the run's first batch brought: nothing new, a
    /// page to pull from, a refusal (that collection's outcome), or a collection the server
    /// forgot (pulled again from scratch).
    func takeCheck(
        _ state: SyncState, result: BatchResult, answer: Result<PageResult, APIError>, sentAt: Date, forgotten: Set<CollectionName>
    ) async throws {
        noteBackoff(result.backoff)
        guard unavailable[state.collection] == nil else { return }  // no key for an encrypted account
        if forgotten.contains(state.collection) || state.recovering {
            try await isolating(state.collection) { try await pullCollection(state.collection, first: .request) }
            return
        }
        switch answer {
        case .failure(let error):
            guard let failure = Self.collectionFailure(error) else { throw error }
            try markUnavailable(state.collection, failure)
        case .success(.page(let page)) where !page.records.isEmpty || page.next.morePagesFollow:
            try await isolating(state.collection) {
                try await pullCollection(state.collection, first: .arrived(page, sentAt: sentAt))
            }
        case .success(let result):
            // A 304, or no record since the cursor.
            emit(.collectionStarted(state.collection))
            try upToDate(state.collection, reported: result.collectionTimestamp, sentAt: sentAt)
            finish(state.collection)
        }
    }

    /// The idle run's sub-requests: a `_since` GET per collection, the keyring when this
    /// device holds none, and the bucket's collection objects (last, so that it sees
    /// collections the GETs before it recreated).
    /// - Parameters:
    ///   - bucket: the user's bucket id, or nil for Kinto's `default` alias.
    ///   - establishing: the bucket whose history's newest entry goes first, before any
    ///     collection is read (`HistoryGate.fresh`); nil for none.
    private func changeChecks(
        _ states: [SyncState], inBucket bucket: String?, asksForKeyring: Bool, checksMemory: Bool, establishing: String?
    ) throws -> [KintoRequest] {
        var operations = establishing.map { [KintoRequest.bucketHistoryNewest(inBucket: $0, limit: HistoryGate.pageLimit)] } ?? []
        operations += states.map { state in
            KintoRequest.list(in: KintoCollectionPath(state.collection, userBucket: bucket), query: firstPageQuery(state, conditional: false))
        }
        if asksForKeyring { operations.append(try Self.keyringRequest()) }
        if checksMemory { operations.append(.listCollections(inBucket: bucket ?? KintoCollectionPath.userBucket)) }
        return operations
    }

    /// Whether the server refused a path in the user's bucket named by its id (403/404)
    /// that it did not refuse last time: such a path reaches only collections that exist.
    private static func bucketRefused(_ results: [BatchResult], states: [SyncState], checksMemory: Bool) -> Bool {
        let refused = { (result: BatchResult) in result.status == 403 || result.status == 404 }
        let collections = zip(states, results).contains { state, result in
            !state.collection.isReadOnly && !state.wasRefused && refused(result)
        }
        return collections || (checksMemory && results.last.map(refused) == true)
    }

    /// Pulls collections one after the other (a first sync, or one collection).
    ///
    /// Once the server has answered the first collection's first request — so the
    /// account and the server work — the other collections' first pages are asked for
    /// at once, and arrive while the first collection is still being pulled and stored
    /// instead of one round trip each after it.
    private func pullOneByOne(_ states: [SyncState]) async throws {
        var requested: [CollectionName: Task<PageResult, any Error>] = [:]
        var sentAts: [CollectionName: Date] = [:]
        defer { for task in requested.values { task.cancel() } }
        for (index, state) in states.enumerated() {
            let first = requested.removeValue(forKey: state.collection).map { task in
                FirstPage.requested(task, sentAt: sentAts[state.collection] ?? now)
            } ?? .request
            try await isolating(state.collection) {
                try await pullCollection(state.collection, first: first) {
                    guard index == 0, !stopsForBackoff else { return }
                    for later in states.dropFirst() {
                        let service = KintoCollectionService(client: engine.client, collection: later.collection)
                        let query = firstPageQuery(later, conditional: true)
                        let sentAt = now
                        requested[later.collection] = Task { try await service.firstPage(query) }
                        sentAts[later.collection] = sentAt
                    }
                }
            }
        }
    }

    /// Where a collection's first page comes from. `sentAt` is this machine's time
    /// before the request left: what the server's clock is projected from
    /// (`CommitWindow.serverClock`); an earlier time only makes the projection smaller.
    enum FirstPage {
        /// Asked for now, from where the collection is settled.
        case request
        /// A batch already brought it (the rest of the list, if any, `.byCursor`).
        case arrived(RecordPage, sentAt: Date)
        /// Asked for earlier (`firstPageQuery`); on a transient failure it is asked for
        /// again with the run's retries.
        case requested(Task<PageResult, any Error>, sentAt: Date)
    }

    /// Pulls one collection page by page, applying each page with the cursor after it
    /// in one transaction. While a page is being stored the next one is already being
    /// fetched.
    /// - Parameter onFirstAnswer: called once the server answered the first request.
    func pullCollection(_ collection: CollectionName, first: FirstPage, onFirstAnswer: () -> Void = {}) async throws {
        emit(.collectionStarted(collection))
        let started = ContinuousClock.now
        var completed = false
        defer {
            collectionReport(collection) { $0.durationMilliseconds += milliseconds(since: started) }
            if completed { finish(collection) }
        }
        let service = KintoCollectionService(client: engine.client, collection: collection)
        // NB: the pull's first request is made outside it, so a run bounded to N pages still
        // makes at most N + 1 requests.
        let ahead = PageFetchAhead(service: service, maximumRequests: max(0, options.maximumPages - pagesPulled))
        defer { ahead.stop() }
        // A recovery (the server forgot records) pulls from scratch; one cut short starts again.
        var mode: PullMode = try restartRecovery(collection) ? .recovery(present: []) : .ordinary
        let start = try store.read { reader in try reader.syncState(collection) }
        let since = firstPageQuery(start, conditional: false).since.map(Int64.init)
        let (answer, sentAt) = try await firstAnswer(
            mode.isRecovery ? .request : first, of: collection, service: service, ahead: ahead)
        if let backoff = answer.backoff { noteBackoff(backoff) }
        onFirstAnswer()
        guard case .page(let firstPage) = answer else {
            try upToDate(collection, reported: answer.collectionTimestamp, sentAt: sentAt)
            try honourBackoff()
            completed = true
            return
        }
        let reading = PullReading(
            since: since,
            serverClock: options.commitWindow.serverClock(reported: answer.collectionTimestamp, previous: start.serverClock, sentAt: sentAt),
            fromScratch: since == nil || mode.isRecovery)
        try await pullPages(from: firstPage, of: collection, reading: reading, mode: &mode, service: service, ahead: ahead)
        completed = true
    }

    /// The pull's first answer, and this machine's time before its request left.
    private func firstAnswer(
        _ first: FirstPage, of collection: CollectionName, service: KintoCollectionService, ahead: PageFetchAhead
    ) async throws -> (answer: PageResult, sentAt: Date) {
        switch first {
        case .arrived(let arrived, let sentAt):
            return (.page(arrived), sentAt)
        case .request:
            let sentAt = now
            return (try await requestFirstPage(collection, service: service, ahead: ahead), sentAt)
        case .requested(let task, let sentAt):
            return (try await requested(task, collection, service: service), sentAt)
        }
    }

    /// Applies `first` and every page after it, through the run's paging loop (`readPages`).
    private func pullPages(
        from first: RecordPage, of collection: CollectionName, reading: PullReading, mode: inout PullMode,
        service: KintoCollectionService, ahead: PageFetchAhead
    ) async throws {
        var pulled = 0
        // NB: a first pull of a large collection loads it without the id index (`BulkLoad`).
        let bulkLoad = BulkLoad()
        // NB: the guard starts where the list starts, which may be behind the cursor.
        let guardrail = PagingGuard(listing: service, since: reading.since)
        try await readPages(from: first, guardrail: guardrail, ahead: ahead) { _ in
            // NB: the rest of the list from the stored cursor, which says how far the pull got.
            try await requestFromCursor(collection, service: service, ahead: ahead)
        } take: { page in
            let counts = try apply(page, to: collection, reading: reading, pulledBefore: pulled, mode: &mode, bulkLoad: bulkLoad)
            pulled = counts.totalSoFar
            noteServerPageLimit(page)
            emit(.pageApplied(collection, counts))
        }
    }

    /// The collection's pull is done: tell listeners, with what it did so far.
    func finish(_ collection: CollectionName) {
        collectionReport(collection) { _ in }
        emit(.collectionFinished(collection, report.collections[collection.rawValue] ?? CollectionReport()))
    }

    // MARK: Steps

    /// A pull's first request: from where the collection is settled (`CommitWindow`),
    /// sorted by `last_modified`, with the collection's ETag when everything up to the
    /// cursor is settled.
    /// - Parameter ahead: asks for the page after it as soon as its headers name it.
    private func requestFirstPage(
        _ collection: CollectionName, service: KintoCollectionService, ahead: PageFetchAhead? = nil
    ) async throws -> PageResult {
        let state = try store.read { reader in try reader.syncState(collection) }
        let query = firstPageQuery(state, conditional: true)
        let onNextPage = ahead?.onNextPage
        return try await withRetries("pull \(collection.rawValue)") { try await service.firstPage(query, onNextPage: onNextPage) }
    }

    /// The rest of a pull under way, from the stored cursor, which says how far it got:
    /// records this pull could not see yet are the next pull's, which starts from where
    /// the collection is settled.
    private func requestFromCursor(
        _ collection: CollectionName, service: KintoCollectionService, ahead: PageFetchAhead? = nil
    ) async throws -> RecordPage? {
        let state = try store.read { reader in try reader.syncState(collection) }
        let query = ListQuery(since: state.cursor.map(Int.init), limit: options.pageSize, sort: ["last_modified"])
        let onNextPage = ahead?.onNextPage
        let result = try await withRetries("pull \(collection.rawValue)") { try await service.firstPage(query, onNextPage: onNextPage) }
        return notingNotModified(result)
    }

    /// A first page asked for earlier. That request was only a head start: when it
    /// failed, the collection is asked for again in its turn, with the run's retries —
    /// unless the server asked clients to slow down (429 or 503 with `Retry-After`),
    /// which is honoured, or refused the collection for good (403/404), which is its outcome.
    ///
    /// NB: on a new account Kinto creates the default bucket's collections on their
    /// first request, and concurrent first requests can collide there: one of them gets
    /// a 409 "Integrity constraint violated, please retry". Asked again alone, it works.
    private func requested(
        _ task: Task<PageResult, any Error>, _ collection: CollectionName, service: KintoCollectionService
    ) async throws -> PageResult {
        report.requests += 1
        do {
            return try await task.value
        } catch let error as APIError {
            if case .throttled = FailureClass(error) { throw error }
            guard Self.collectionFailure(error) == nil else { throw error }
            return try await requestFirstPage(collection, service: service)
        }
    }

    private func notingNotModified(_ result: PageResult) -> RecordPage? {
        switch result {
        case .notModified(_, let backoff):
            noteBackoff(backoff)
            return nil
        case .page(let page):
            return page
        }
    }

    /// A pull's first list request: from where the collection is settled
    /// (`CommitWindow.since`); `conditional` adds its ETag when everything up to the
    /// cursor is settled (a late record does not change the collection's ETag).
    ///
    /// NB: a recovery starts at `_since=0`, not without `_since`: a plain list hides
    /// tombstones, and a record another device deleted after uploading it again must
    /// reach this store as deleted, not as missing (which would upload it once more).
    func firstPageQuery(_ state: SyncState, conditional: Bool) -> ListQuery {
        let window = options.commitWindow
        let since = window.since(state).map { Int(clamping: max(0, $0)) }
        let etag = conditional && window.isSettled(state) ? state.etag.flatMap(ETag.init(headerValue:)) : nil
        return ListQuery(since: since ?? (state.recovering ? 0 : nil), limit: options.pageSize, sort: ["last_modified"], ifNoneMatch: etag)
    }

    /// Applies one page and advances the cursor and the settled stamp, in one
    /// transaction: what is new and the state after the page are the page's plan
    /// (`PulledPagePlan`), decided from a read of the store; records with a waiting local
    /// change are merged three ways instead of overwritten; records the store already
    /// holds in that version (a pull reaches back behind the cursor, `CommitWindow`) are
    /// left alone.
    /// - Parameters:
    ///   - reading: where the pull started and what it knows of the server's clock.
    ///   - mode: a recovery notes the ids the server has so far; its last page queues
    ///     the local records it lacks.
    ///   - bulkLoad: the pull's bulk load, which a recovery never takes part in.
    private func apply(
        _ page: RecordPage, to collection: CollectionName, reading: PullReading, pulledBefore: Int,
        mode: inout PullMode, bulkLoad: BulkLoad
    ) throws -> PageCounts {
        mode.note(page.records)
        let recovering = mode.isRecovery
        // NB: on a sealed run, what the store holds in that version already is dropped
        // before it is opened: a pull that reaches back over the commit window brings the
        // window's records again, and opening each only to drop it cost an idle run after a
        // first sync ten times a plaintext one.
        let held = try sealing.isSealed && !recovering ? heldAlready(page.records, of: collection) : nil
        let readable = try opened(held?.records ?? page.records, of: collection)
        let remote = withinSizeLimit(readable.records, of: collection)
        let present = mode.present
        let (at, window) = (now, options.commitWindow)
        let merger = MergeApplier(policy: options.policy, now: at)
        let dropped = held.map { (held: page.records.count - $0.records.count, late: $0.late) }
        let stored = try store.write(bulkLoad: recovering ? nil : bulkLoad) { tx in
            let read = try PulledPagePlan.Read(remote, of: collection, needsHeldStamps: dropped == nil && !recovering, tx)
            let plan = PulledPagePlan(
                page, records: remote, read: read, dropped: dropped, recovering: recovering, reading: reading, window: window, now: at)
            var stored = try Self.storePage(
                plan, of: collection, recovering: recovering, cursorBeforeRecovery: read.state.cursorBeforeRecovery,
                merger: merger, gate: readable.gate, morePagesFollow: page.next.morePagesFollow, tx)
            try tx.setSyncState(plan.state)
            if recovering, !page.next.morePagesFollow {
                stored.requeued = try SyncRules(tx).requeueRecordsMissing(from: collection, present: present)
            }
            if let admission = stored.admission { try settle(admission, in: collection, tx) }
            return stored
        }
        reportStored(stored, of: collection)
        // NB: records the store already held are not counted as pulled: an idle run that
        // reaches back over them reports nothing pulled, as it did before; nor are those refused.
        let pulled = (held == nil ? remote.count - stored.alreadyHeld : remote.count) - (stored.admission?.refusals.count ?? 0)
        collectionReport(collection) {
            $0.pulled += pulled
            $0.deletedLocally += stored.deleted
            $0.skipped += readable.records.count - remote.count
        }
        return PageCounts(applied: pulled - stored.deleted, deleted: stored.deleted, totalSoFar: pulledBefore + pulled)
    }

    /// A page's records without the oversized ones, each reported. An oversized record
    /// is never stored, but the cursor still moves past it (`PulledPagePlan.state` counts every
    /// record of the page), so it can't stall the pull.
    private func withinSizeLimit(_ records: [RawRecord], of collection: CollectionName) -> [RawRecord] {
        let limit = options.maximumRecordBytes
        guard records.contains(where: { $0.json.count > limit }) else { return records }
        for record in records where record.json.count > limit {
            emit(.recordSkipped(collection, id: record.id, bytes: record.json.count, limit: limit))
        }
        return records.filter { $0.json.count <= limit }
    }

    /// What storing one page did.
    struct StoredPage {
        var merges: [MergedRecord] = []
        /// Tombstones applied.
        var deleted = 0
        /// Local records queued again at the end of a recovery.
        var requeued = 0
        /// Records committed out of timestamp order (`CommitWindow`).
        var late = 0
        /// Records the store held in that version already.
        var alreadyHeld = 0
        /// Acknowledged writes queued again (`OverwrittenWrites`).
        var overwritten: [String] = []
        /// What the rules against a hostile server decided, on a sealed run.
        var admission: IntegrityGate.Admission?
    }

    /// The records of a page the store does not hold in that version yet (and how many
    /// of them are late), read before the page is opened; nil when there is no cursor.
    private func heldAlready(_ records: [RawRecord], of collection: CollectionName) throws -> (records: [RawRecord], late: Int)? {
        try store.read { reader in
            let state = try reader.syncState(collection)
            guard let cursor = state.cursor else { return nil }
            return try Self.droppingHeldVersions(records, behind: cursor, orPushedUpTo: state.pushedTimestamp, in: collection, reader)
        }
    }

    /// Stores the records a page's plan keeps, in the caller's transaction: a recovery
    /// keeps newer local versions and local deletions, and the rest is applied (`applyPulled`).
    private static func storePage(
        _ plan: PulledPagePlan, of collection: CollectionName, recovering: Bool, cursorBeforeRecovery: Int64?,
        merger: MergeApplier, gate: IntegrityGate?, morePagesFollow: Bool, _ tx: StoreTransaction
    ) throws -> StoredPage {
        var stored = StoredPage()
        var incoming = plan.incoming
        (stored.alreadyHeld, stored.late) = (plan.alreadyHeld, plan.late)
        if let gate {
            // NB: before anything else decides on them: what is refused is neither stored,
            // merged, nor kept by a recovery.
            // NB: one page's records: `RecordPageScanner` refuses a page listing an id twice.
            let admission = try gate.admit(incoming, in: collection, idsAreUnique: true, tx)
            incoming = admission.admitted
            stored.admission = admission
        }
        stored.deleted = incoming.filter(\.isDeleted).count
        if recovering {
            let rules = SyncRules(tx)
            let kept = try RecoveryPagePlan(incoming, cursorBefore: cursorBeforeRecovery, rules.recoveryLookups(in: collection))
            try rules.carryOut(kept, in: collection)
            incoming = kept.applied
        }
        let applied = try applyPulled(
            incoming, to: collection, morePagesFollow: morePagesFollow, recovering: recovering, merger: merger, tx)
        (stored.merges, stored.overwritten) = (applied.merges, applied.overwritten)
        return stored
    }

    /// Events and counts for a stored page.
    private func reportStored(_ stored: StoredPage, of collection: CollectionName) {
        noteOverwritten(stored.overwritten, in: collection)
        noteRefusals(stored.admission?.refusals ?? [], in: collection)
        if stored.late > 0 {
            emit(.lateRecords(collection, count: stored.late))
            collectionReport(collection) { $0.late += stored.late }
        }
        if stored.requeued > 0 {
            emit(.reuploading(collection, count: stored.requeued))
            collectionReport(collection) { $0.reuploaded += stored.requeued }
        }
        record(stored.merges, in: collection)
    }

    /// Applies pulled records the store does not hold, in the caller's transaction:
    /// acknowledged writes they replaced unseen are queued again first (not during a
    /// recovery), then records without a waiting change are stored and the others merged.
    /// - Returns: the merges, and the ids whose overwritten writes were queued again.
    static func applyPulled(
        _ incoming: [RawRecord], to collection: CollectionName, morePagesFollow: Bool = false, recovering: Bool,
        merger: MergeApplier, _ tx: StoreTransaction
    ) throws -> AppliedRecords {
        let overwritten = recovering ? [] : try OverwrittenWrites.reopen(incoming, in: collection, tx)
        let held = try SyncRules(tx).applyPulled(incoming, to: collection, morePagesFollow: morePagesFollow)
        return AppliedRecords(merges: try merge(held, in: collection, recovering: recovering, merger: merger, tx), overwritten: overwritten)
    }

    /// What `applyPulled` did: the merges of records a waiting change held, and the ids
    /// whose overwritten writes were queued again.
    struct AppliedRecords {
        let merges: [MergedRecord]
        let overwritten: [String]
    }

    /// Merges the pulled records that a waiting local change held back, three ways.
    static func merge(
        _ held: [HeldRecord], in collection: CollectionName, recovering: Bool,
        merger: MergeApplier, _ tx: StoreTransaction
    ) throws -> [MergedRecord] {
        try held.map { held in
            let record = held.record
            if recovering, !record.isDeleted, let base = held.waiting.baseLastModified, record.lastModified < base {
                // The server went back to a version older than the one this edit
                // started from: what is here is newer on every field; push it over.
                try SyncRules(tx).rebasePendingChange(collection, id: record.id, onto: record, merged: nil)
                return MergedRecord(id: record.id, result: .merged(discarded: nil))
            }
            return MergedRecord(id: record.id, result: try merger.apply(collection, id: record.id, remote: record, in: tx))
        }
    }

    /// The records of a page the store does not hold yet, and how many of them are late
    /// (`PulledPagePlan.unheld`), with the stamps they need read from `reader`.
    static func droppingHeldVersions(
        _ records: [RawRecord], behind cursor: Int64, orPushedUpTo pushed: Int64? = nil, in collection: CollectionName,
        _ reader: StoreReader
    ) throws -> (records: [RawRecord], late: Int) {
        let candidates = PulledPagePlan.heldCandidates(records, cursor: cursor, orPushedUpTo: pushed)
        guard !candidates.isEmpty else { return (records, 0) }
        let held = try reader.serverStamps(collection, ids: candidates)
        return PulledPagePlan.unheld(records, behind: cursor, orPushedUpTo: pushed, heldStamps: held)
    }

    /// What a pull knows from its first answer, for every page it applies.
    struct PullReading {
        /// Where its list started (`_since`); nil for the whole list.
        let since: Int64?
        /// A lower bound of the server's clock at its first read (`CommitWindow`).
        let serverClock: Int64?
        /// It lists the whole collection: a first pull, or a recovery's.
        let fromScratch: Bool
    }

    /// Whether the collection is recovering; if so its pull starts from scratch again.
    private func restartRecovery(_ collection: CollectionName) throws -> Bool {
        let state = try store.read { reader in try reader.syncState(collection) }
        guard state.recovering else { return false }
        if state.cursor != nil || state.settled != nil || state.etag != nil || state.nextPage != nil {
            try store.write { tx in
                try tx.updateSyncState(collection) { state in
                    state.cursor = nil
                    state.settled = nil
                    state.etag = nil
                    state.nextPage = nil
                }
            }
        }
        return true
    }

    /// Nothing changed since the cursor: the collection is synced as of now, and
    /// listeners hear so. What the answer says of the server's clock may settle the
    /// cursor (`CommitWindow`).
    /// - Parameters:
    ///   - reported: the collection timestamp the server answered with.
    ///   - sentAt: this machine's time before the request left.
    private func upToDate(_ collection: CollectionName, reported: Int64?, sentAt: Date) throws {
        let (at, window) = (now, options.commitWindow)
        try store.write { tx in
            try tx.updateSyncState(collection) { state in
                state = PulledPagePlan.upToDate(state, reported: reported, sentAt: sentAt, window: window, now: at)
            }
        }
        emit(.notModified(collection))
    }

    /// Reports merges and conflicts as events and counts.
    func record(_ merges: [MergedRecord], in collection: CollectionName) {
        for merge in merges {
            let id = merge.id
            switch merge.result {
            case .merged(let discarded):
                emit(.merged(collection, id: id))
                collectionReport(collection) { $0.merged += 1 }
                if let discarded { noteDiscarded(collection, id: id, discarded) }
            case .tookRemote(let discarded?):
                emit(.merged(collection, id: id))
                collectionReport(collection) { $0.merged += 1 }
                noteDiscarded(collection, id: id, discarded)
            case .tookRemote(nil), .acknowledged:
                break
            case .conflict(let conflict):
                emit(.conflict(collection, id: id, conflict))
                collectionReport(collection) { $0.conflicts += 1 }
            }
        }
    }

    /// A run that discards local work says so: an event (a log line) and a count.
    func noteDiscarded(_ collection: CollectionName, id: String, _ clash: MergeConflict) {
        emit(.discardedLocalChange(collection, id: id, clash))
        collectionReport(collection) { $0.discardedLocal += 1 }
    }
}

// MARK: - What an answer says

extension PageResult {
    /// The collection's timestamp when the server read it (its `ETag`): a record it had
    /// already stamped, so a time its clock had reached.
    var collectionTimestamp: Int64? {
        let etag: ETag? = switch self {
        case .notModified(let etag, _): etag
        case .page(let page): page.etag
        }
        return etag?.timestamp.map(Int64.init)
    }

    /// `Backoff`, in seconds, when the server asked clients to slow down.
    var backoff: TimeInterval? {
        switch self {
        case .notModified(_, let backoff): backoff
        case .page(let page): page.backoff
        }
    }
}
