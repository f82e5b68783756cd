import Domain
import Foundation
import Services
import Storage

// MARK: - Pull

extension SyncRun {
    /// Pulls every collection's changes.
    ///
    /// When every collection has been pulled before, one `POST /batch` carries a
    /// `_since=<cursor>` GET per collection: an up-to-date store costs one round trip
    /// (every list comes back empty), and a changed collection's first page arrives in
    /// the same answer.
    ///
    /// NB: the sub-requests carry no `If-None-Match`: Kinto 26.5.0 answers a batch whose
    /// sub-response is a 304 with a 500 (it cannot serialise the empty 304 body). An
    /// empty `_since` list says "nothing changed" just as well, tombstones included.
    ///
    /// A collection the server refuses for good (403/404) is that collection's outcome
    /// only (`isolating`): the others are pulled all the same. A read-only server gets
    /// no batch (it refuses every POST), only GETs.
    func pullAll() async throws {
        let states = try store.read { reader in try options.collections.map { try reader.syncState($0) } }
        guard states.count > 1, states.allSatisfy({ $0.lastSuccess != nil }), !options.serverIsReadOnly else {
            try await pullOneByOne(states)
            await learnCollectionTimestamps(states)
            return
        }
        var operations = states.map { state in
            BatchOperation.list(in: KintoCollectionPath(state.collection), query: firstPageQuery(state, conditional: false))
        }
        // NB: last, so that it sees collections the GETs before it recreated.
        let checksMemory = checksServerMemory(states)
        if checksMemory { operations.append(.listCollections(inBucket: KintoCollectionPath.userBucket)) }
        let batch = KintoBatchService(client: engine.client, maximumRequests: options.batchSize)
        let results = try await withRetries("check \(states.count) collections for changes") { try await batch.send(operations) }
        let answers = zip(states, results.prefix(states.count)).map { state, result in
            Result { () throws(APIError) in try result.page(indexingFor: state.collection) }
        }
        let forgotten = try await noticeForgetting(
            states, pulls: answers, listing: checksMemory ? results.last?.collectionTimestamps() : nil)
        for (state, (result, answer)) in zip(states, zip(results, answers)) {
            noteBackoff(result.backoff)
            if forgotten.contains(state.collection) || state.recovering {
                try await isolating(state.collection) { try await pullCollection(state.collection, first: .request) }
                continue
            }
            switch answer {
            case .failure(let error):
                guard let failure = Self.collectionFailure(error) else { throw error }
                try markUnavailable(state.collection, failure)
            case .success(.page(let page)) where !page.records.isEmpty || page.next.morePagesFollow:
                try await isolating(state.collection) { try await pullCollection(state.collection, first: .arrived(page)) }
            case .success:
                // A 304, or no record since the cursor.
                emit(.collectionStarted(state.collection))
                try upToDate(state.collection)
                finish(state.collection)
            }
        }
        try honourBackoff()
    }

    /// Pulls collections one after the other (a first sync, or one collection).
    ///
    /// Once the server has answered the first collection's first request — so the
    /// account and the server work — the other collections' first pages are asked for
    /// at once, and arrive while the first collection is still being pulled and stored
    /// instead of one round trip each after it.
    private func pullOneByOne(_ states: [SyncState]) async throws {
        var requested: [CollectionName: Task<PageResult, any Error>] = [:]
        defer { for task in requested.values { task.cancel() } }
        for (index, state) in states.enumerated() {
            let first = requested.removeValue(forKey: state.collection).map(FirstPage.requested) ?? .request
            try await isolating(state.collection) {
                try await pullCollection(state.collection, first: first) {
                    guard index == 0, !stopsForBackoff else { return }
                    for later in states.dropFirst() {
                        let service = KintoCollectionService(client: engine.client, collection: later.collection)
                        let query = firstPageQuery(later, conditional: true)
                        requested[later.collection] = Task { try await service.firstPage(query) }
                    }
                }
            }
        }
    }

    /// Where a collection's first page comes from.
    enum FirstPage {
        /// Asked for now, from the stored cursor.
        case request
        /// A batch already brought it (the rest of the list, if any, `.byCursor`).
        case arrived(RecordPage)
        /// Asked for earlier (`firstPageQuery`); on a transient failure it is asked for
        /// again with the run's retries.
        case requested(Task<PageResult, any Error>)
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
        // A recovery (the server forgot records) pulls from scratch and notes every id
        // the server still has; a recovery cut short starts again.
        var present: Set<String>? = try restartRecovery(collection) ? [] : nil
        let first = present == nil ? first : .request

        var page: RecordPage
        let answer: RecordPage?
        switch first {
        case .arrived(let arrived):
            answer = arrived
        case .request:
            answer = try await requestFromCursor(collection, service: service, conditional: true, ahead: ahead)
        case .requested(let task):
            answer = try await requested(task, collection, service: service)
        }
        if let answer { noteBackoff(answer.backoff) }
        onFirstAnswer()
        guard let answer else {
            try upToDate(collection)
            try honourBackoff()
            completed = true
            return
        }
        page = answer

        var pulled = 0
        // NB: a first pull of a large collection loads it without the id index (`BulkLoad`).
        let bulkLoad = BulkLoad()
        var guardrail = try PagingGuard(collection: collection, cursor: store.read { reader in try reader.syncState(collection).cursor })
        while true {
            noteBackoff(page.backoff)
            try guardrail.check(page)
            try countPage()
            var prefetch: Task<RecordPage, any Error>?
            if !stopsForBackoff, case .url(let next) = page.next {
                prefetch = ahead.page(at: next)
            }
            let counts: PageCounts
            do {
                counts = try apply(page, to: collection, pulledBefore: pulled, present: &present, bulkLoad: bulkLoad)
            } catch {
                prefetch?.cancel()
                throw error
            }
            pulled = counts.totalSoFar
            noteServerPageLimit(page)
            emit(.pageApplied(collection, counts))
            if stopsForBackoff {
                prefetch?.cancel()
                ahead.stop()
            }
            try honourBackoff()

            if let prefetch {
                report.requests += 1
                do {
                    page = try await prefetch.value
                    continue
                } catch let error as APIError where error.isTransient {
                    // Ask again from the durable cursor, with the run's retries.
                }
            } else if page.next == .done {
                break
            }
            guard let next = try await requestFromCursor(collection, service: service, conditional: false, ahead: ahead) else { break }
            page = next
        }
        completed = true
    }

    /// Counts a page against the run's `maximumPages`.
    /// - Throws: `PagingError.tooManyPages` past the maximum.
    private func countPage() throws {
        pagesPulled += 1
        guard pagesPulled <= options.maximumPages else { throw PagingError.tooManyPages(limit: options.maximumPages) }
    }

    /// The collection's pull is done: tell listeners, with what it did so far.
    private func finish(_ collection: CollectionName) {
        collectionReport(collection) { _ in }
        emit(.collectionFinished(collection, report.collections[collection.rawValue] ?? CollectionReport()))
    }

    // MARK: Steps

    /// The first page after the stored cursor, sorted by `last_modified` so that the
    /// cursor alone says how far a pull got; nil when the server answers 304.
    /// - Parameter ahead: asks for the page after it as soon as its headers name it.
    private func requestFromCursor(
        _ collection: CollectionName, service: KintoCollectionService, conditional: Bool, ahead: PageFetchAhead? = nil
    ) async throws -> RecordPage? {
        let state = try store.read { reader in try reader.syncState(collection) }
        let query = firstPageQuery(state, conditional: conditional)
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
    ) async throws -> RecordPage? {
        report.requests += 1
        do {
            return notingNotModified(try await task.value)
        } catch let error as APIError where !Self.isThrottling(error) && Self.collectionFailure(error) == nil {
            return try await requestFromCursor(collection, service: service, conditional: true)
        }
    }

    private static func isThrottling(_ error: APIError) -> Bool {
        guard let failure = error.httpFailure, failure.retryAfter != nil else { return false }
        return failure.status == 429 || failure.status == 503
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

    /// The list request from a collection's stored cursor; `conditional` adds its ETag.
    ///
    /// NB: a recovery starts at `_since=0`, not without `_since`: a plain list hides
    /// tombstones, and a record another device deleted after uploading it again must
    /// reach this store as deleted, not as missing (which would upload it once more).
    private func firstPageQuery(_ state: SyncState, conditional: Bool) -> ListQuery {
        ListQuery(
            since: state.cursor.map(Int.init) ?? (state.recovering ? 0 : nil), limit: options.pageSize,
            sort: ["last_modified"], ifNoneMatch: conditional ? state.etag.flatMap(ETag.init(headerValue:)) : nil)
    }

    /// Applies one page and advances the cursor, in one transaction. Records with a
    /// waiting local change are merged three ways instead of overwritten.
    /// - Parameters:
    ///   - present: during a recovery, the ids the server has so far; the last page
    ///     queues the local records it lacks.
    ///   - bulkLoad: the pull's bulk load, which a recovery never takes part in.
    private func apply(
        _ page: RecordPage, to collection: CollectionName, pulledBefore: Int, present: inout Set<String>?, bulkLoad: BulkLoad
    ) throws -> PageCounts {
        // NB: an oversized record is never stored, but the cursor still moves past it
        // (`highest` below counts every record of the page), so it can't stall the pull.
        let limit = options.maximumRecordBytes
        let oversized = page.records.filter { $0.json.count > limit }
        for record in oversized {
            emit(.recordSkipped(collection, id: record.id, bytes: record.json.count, limit: limit))
        }
        let remote = oversized.isEmpty ? page.records : page.records.filter { $0.json.count <= limit }
        let pageHighest = page.records.map(\.lastModified).max()
        // NB: a skipped record is still one the server has: it is not uploaded again.
        if present != nil { present?.formUnion(page.records.lazy.filter { !$0.isDeleted }.map(\.id)) }
        let merger = MergeApplier(policy: options.policy, now: now)
        let isLast = !page.next.morePagesFollow
        let at = now
        let recovering = present != nil
        let seen = present ?? []
        let (merges, deleted, requeued) = try store.write(bulkLoad: recovering ? nil : bulkLoad) { tx in
            var incoming = remote
            if recovering {
                let before = try tx.syncState(collection).cursorBeforeRecovery
                incoming = try remote.filter { record in
                    try !tx.keepNewerLocalVersion(record, in: collection)
                        && !tx.keepLocalDeletion(record, in: collection, cursorBefore: before)
                }
            }
            let held = try tx.applyRemote(incoming, to: collection, morePagesFollow: !isLast)
            var merges: [(String, MergeApplier.Result)] = []
            for (record, waiting) in held {
                if recovering, !record.isDeleted, let base = waiting.baseLastModified, record.lastModified < base {
                    // The server went back to a version older than the one this edit
                    // started from: what is here is newer on every field; push it over.
                    try tx.rebasePendingChange(collection, id: record.id, onto: record, merged: nil)
                    merges.append((record.id, .merged(discarded: nil)))
                    continue
                }
                merges.append((record.id, try merger.apply(collection, id: record.id, remote: record, in: tx)))
            }
            let highest = pageHighest
            try tx.updateSyncState(collection) { state in
                if let highest { state.cursor = max(state.cursor ?? highest, highest) }
                // NB: a complete pull leaves a cursor even when the server had nothing:
                // without one the next pull is a plain list, which hides tombstones —
                // and this store may hold records another device deletes meanwhile.
                if isLast, state.cursor == nil { state.cursor = 0 }
                if isLast {
                    state.etag = page.etag?.headerValue
                    state.lastSuccess = at
                    state.lastError = nil
                    state.lastErrorAt = nil
                    state.nextPage = nil
                } else {
                    state.nextPage = page.next.url
                }
            }
            let requeued = recovering && isLast ? try tx.requeueRecordsMissing(from: collection, present: seen) : 0
            return (merges, remote.filter(\.isDeleted).count, requeued)
        }
        if requeued > 0 {
            emit(.reuploading(collection, count: requeued))
            collectionReport(collection) { $0.reuploaded += requeued }
        }
        record(merges, in: collection)
        collectionReport(collection) {
            $0.pulled += remote.count
            $0.deletedLocally += deleted
            $0.skipped += oversized.count
        }
        return PageCounts(applied: remote.count - deleted, deleted: deleted, totalSoFar: pulledBefore + remote.count)
    }

    /// Whether the collection is recovering; if so its pull starts from scratch again.
    private func restartRecovery(_ collection: CollectionName) throws -> Bool {
        let state = try store.read { reader in try reader.syncState(collection) }
        guard state.recovering else { return false }
        if state.cursor != nil || state.etag != nil || state.nextPage != nil {
            try store.write { tx in
                try tx.updateSyncState(collection) { state in
                    state.cursor = nil
                    state.etag = nil
                    state.nextPage = nil
                }
            }
        }
        return true
    }

    /// Nothing changed since the cursor: the collection is synced as of now, and
    /// listeners hear so.
    private func upToDate(_ collection: CollectionName) throws {
        let at = now
        try store.write { tx in
            try tx.updateSyncState(collection) { state in
                state.lastSuccess = at
                state.lastError = nil
                state.lastErrorAt = nil
                if state.cursor == nil { state.cursor = 0 }  // see `apply`
            }
        }
        emit(.notModified(collection))
    }

    /// Reports merges and conflicts as events and counts.
    func record(_ merges: [(String, MergeApplier.Result)], in collection: CollectionName) {
        for (id, result) in merges {
            switch result {
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
