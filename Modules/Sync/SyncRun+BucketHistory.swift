import Domain
import Foundation
import Services
import Storage

// MARK: - Reading the bucket's history (HistoryGate)

extension SyncRun {
    /// What a run does with the bucket's history.
    enum HistoryPlan: Equatable {
        /// The server keeps none, or the run's shape has no use for it.
        case none
        /// Read it instead of every collection, from `reading`.
        case ask(bucket: String, reading: BucketHistoryState)
        /// Ask every collection, with the history's newest entry first, and keep a fresh
        /// reading if every collection is pulled to the end.
        case establish(bucket: String)

        /// The bucket whose newest entry the ordinary batch asks first, if any.
        var establishing: String? {
            if case .establish(let bucket) = self { return bucket }
            return nil
        }
    }

    /// A history read that came before an ordinary run's collection reads: what a fresh
    /// reading is made of once they all pulled to the end. `page` is nil when the read failed.
    struct BucketHistoryRead {
        let bucket: String
        let page: BucketHistoryPage?
    }

    /// What reading the history said.
    enum HistoryOutcome {
        /// Nothing new: every collection is up to date, and the run asked nothing else.
        case quiet
        /// Ask every collection.
        case news(BucketHistoryRead)
    }

    /// Whether this run reads the history: only a batch run of a server that keeps it, by
    /// the user's bucket id, that asks every collection of the reader's.
    ///
    /// NB: a run of some collections only (a read's refresh of the cart and the catalog)
    /// neither reads the history nor takes a reading: its pulls cover only those collections,
    /// and a reading taken after them would count another collection's change as known.
    func historyPlan(_ states: [SyncState]) throws -> HistoryPlan {
        guard options.readsBucketHistory, let bucket = options.userBucket,
              Set(CollectionName.writable).isSubset(of: states.map(\.collection))
        else { return .none }
        let reading = try store.read { reader in try reader.bucketHistory(of: bucket) }
        if let reading, HistoryGate.isDistrusted(reading, now: now) { return .none }
        if let reading, HistoryGate.mayAsk(reading, states: states, now: now) { return .ask(bucket: bucket, reading: reading) }
        return .establish(bucket: bucket)
    }

    /// One batch: the history since where it is settled, and the shared catalog (which
    /// lives in another bucket) as an idle run always asks it. Quiet: every collection of
    /// the reader's is up to date as of the read, and the catalog's answer is taken as the
    /// ordinary batch's would be.
    func checkHistory(bucket: String, reading: BucketHistoryState, states: [SyncState]) async throws -> HistoryOutcome {
        let window = options.commitWindow
        let catalog = states.filter(\.collection.isReadOnly)
        let own = states.filter { !$0.collection.isReadOnly }
        var operations = [KintoRequest.bucketHistory(inBucket: bucket, since: HistoryGate.since(reading, window: window), limit: HistoryGate.pageLimit)]
        operations += catalog.map { KintoRequest.list(in: KintoCollectionPath($0.collection, userBucket: bucket), query: firstPageQuery($0, conditional: false)) }
        let batch = KintoBatchService(client: engine.client, maximumRequests: options.batchSize)
        let sentAt = now
        let results = try await withRetries("check the bucket's history for changes") { try await batch.send(operations) }
        if let answer = results.first { noteBackoff(answer.backoff) }
        guard let answer = results.first, let page = try? answer.bucketHistory() else {
            // NB: a history the server no longer serves (403/404: the plugin taken out, the
            // bucket gone) drops the reading, and the ordinary run asks for a new one; any
            // other failure leaves it for the next run.
            if let status = results.first?.status, status == 403 || status == 404 {
                try store.write { tx in try tx.setBucketHistory(nil) }
            }
            return .news(BucketHistoryRead(bucket: bucket, page: nil))
        }
        let lookups = HistoryGate.lookups(page)
        let held = try store.read { reader in
            try lookups.reduce(into: [CollectionName: [String: Int64]]()) { held, entry in
                held[entry.key] = try reader.serverStamps(entry.key, ids: entry.value)
            }
        }
        let verdict = HistoryGate.verdict(
            page, reading: reading, states: Dictionary(own.map { ($0.collection, $0) }, uniquingKeysWith: { first, _ in first }), held: held)
        switch verdict {
        case .quiet:
            break
        case .news:
            return .news(BucketHistoryRead(bucket: bucket, page: page))
        case .untrusted(let reason):
            // NB: the page proved nothing, so no reading is made from it (`keepHistory`).
            var distrusted = reading
            distrusted.distrustedUntil = now.addingTimeInterval(HistoryGate.distrustFor)
            try store.write { tx in try tx.setBucketHistory(distrusted) }
            emit(.historyDistrusted(reason: reason))
            return .news(BucketHistoryRead(bucket: bucket, page: nil))
        }
        // NB: every collection up to date and the reading after this read, in one transaction:
        // an idle run writes the store once.
        let (after, at) = (HistoryGate.reading(after: page, from: reading, sentAt: sentAt, window: window, now: now), now)
        try store.write { tx in
            for state in own {
                try tx.updateSyncState(state.collection) { state in
                    state = PulledPagePlan.upToDate(state, reported: nil, sentAt: sentAt, window: window, now: at)
                }
            }
            try tx.setBucketHistory(after)
        }
        for state in own {
            emit(.collectionStarted(state.collection))
            emit(.notModified(state.collection))
            finish(state.collection)
        }
        for (state, result) in zip(catalog, results.dropFirst()) {
            let answer = Result { () throws(APIError) in try result.page(indexingFor: state.collection) }
            try await takeCheck(state, result: result, answer: answer, sentAt: sentAt, forgotten: [])
        }
        return .quiet
    }

    /// After an ordinary run that read the history first: a fresh reading when every
    /// reader's collection was pulled to the end (none refused, held, cut by the page
    /// limit or left recovering), else the reading is left as it was. A read that failed
    /// or proved nothing leaves it too (dropped or distrusted by `checkHistory`).
    func keepHistory(after read: BucketHistoryRead) throws {
        guard let page = read.page, pagesPulled < options.maximumPages,
              !unavailable.keys.contains(where: { !$0.isReadOnly })
        else { return }
        let fresh = HistoryGate.fresh(bucket: read.bucket, page: page, now: now)
        let own = options.collections.filter { !$0.isReadOnly }
        try store.write { tx in
            let states = try own.map { try tx.syncState($0) }
            guard states.allSatisfy({ $0.nextPage == nil && !$0.recovering && $0.lastSuccess != nil }) else { return }
            try tx.setBucketHistory(fresh)
        }
    }
}
