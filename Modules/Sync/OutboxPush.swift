import Domain
import Foundation
import Records
import Services
import Storage

// MARK: - Push

extension SyncRun {
    /// What the server said to one batch, once stored.
    private struct BatchSummary {
        var accepted: [CollectionName: Int] = [:]
        var merges: [CollectionName: [(String, MergeApplier.Result)]] = [:]
        var deadLetters: [(CollectionName, String, Int, String)] = []
        /// Changes that failed transiently and stay queued for another attempt.
        var transient: [String] = []
        var authentication: String?
        /// The highest timestamp the server gave an accepted change, per collection.
        var highest: [CollectionName: Int64] = [:]

        var madeProgress: Bool {
            !accepted.isEmpty || !merges.isEmpty || !deadLetters.isEmpty
        }
    }

    /// Pushes the outbox in order, a `POST /batch` of at most `batchSize` changes at a
    /// time: creates with `If-None-Match: *`, updates and deletes with
    /// `If-Match: "<base>"`. Each batch's answers are stored in one transaction.
    ///
    /// Collections the server refused this run are left out: their changes wait. On a
    /// read-only server nothing is sent; the changes are counted for the run's message.
    func pushAll() async throws {
        let collections = options.collections.filter { !$0.isReadOnly && unavailable[$0] == nil }
        guard !collections.isEmpty else { return }
        if options.serverIsReadOnly {
            waitingForWritableServer = try store.read { reader in
                try collections.reduce(0) { $0 + (try reader.pendingCount(in: $1)) }
            }
            return
        }
        let everyWritable = Set(collections) == Set(CollectionName.writable)
        let batch = KintoBatchService(client: engine.client, maximumRequests: options.batchSize)
        var failedRounds = 0
        // Bounded: a change merged after a 412 is pushed again, but a server that keeps
        // changing under every attempt must not keep the run alive forever.
        for _ in 0..<max(64, 4 * options.retry.maxAttempts) {
            let pending = try nextChanges(collections, all: everyWritable)
            guard !pending.isEmpty else { return }
            let changes = try markSent(pending)
            guard !changes.isEmpty else { continue }  // all edited since read: read again
            let operations = try changes.map(operation(for:))
            let results = try await withRetries("push \(changes.count) change\(changes.count == 1 ? "" : "s")") {
                try await batch.send(operations)
            }
            let summary = try store(results, for: changes)
            for (collection, count) in summary.accepted.sorted(by: { $0.key < $1.key }) {
                emit(.pushed(collection, count: count))
                collectionReport(collection) { $0.pushed += count }
            }
            for (collection, merges) in summary.merges { record(merges, in: collection) }
            for (collection, id, status, reason) in summary.deadLetters {
                emit(.deadLettered(collection, id: id, status: status, reason: reason))
                collectionReport(collection) { $0.deadLetters += 1 }
            }
            if let message = summary.authentication { throw SyncStop.authentication(message) }
            try honourBackoff()

            if summary.madeProgress {
                failedRounds = 0
            } else {
                failedRounds += 1
                let reason = summary.transient.first ?? "the server did not accept the changes"
                guard failedRounds < options.retry.maxAttempts else {
                    throw SyncStop.temporary("push: \(reason) (gave up after \(failedRounds) attempts)")
                }
                let delay = options.retry.delay(beforeRetry: failedRounds, using: &randomness)
                emit(.retrying(attempt: failedRounds + 1, delay: delay, reason: "push: \(reason)"))
                try await engine.clock.sleep(delay)
            }
        }
        throw SyncStop.temporary("push: the server kept changing the same records; the rest waits for the next run")
    }

    // MARK: Steps

    private func nextChanges(_ collections: [CollectionName], all: Bool) throws -> [PendingChange] {
        try store.read { reader in
            if all { return try reader.pendingChanges(limit: options.batchSize) }
            for collection in collections {
                let changes = try reader.pendingChanges(in: collection, limit: options.batchSize)
                if !changes.isEmpty { return changes }
            }
            return []
        }
    }

    /// Marks the changes as sent, with their bodies, in one transaction before the
    /// request leaves: a reply lost after the server applied them must not turn them
    /// back into unsent changes. Changes already in flight are sent again as they were.
    private func markSent(_ changes: [PendingChange]) throws -> [PendingChange] {
        guard changes.contains(where: { !$0.entry.isInFlight }) else { return changes }
        let bodies = try changes.map { change in
            change.entry.isInFlight || change.entry.kind == .delete
                ? nil : try RecordJSON.pushBody(change.json, collection: change.entry.collection, id: change.entry.recordID)
        }
        return try store.write { tx in
            try zip(changes, bodies).compactMap { change, body in
                guard !change.entry.isInFlight else { return change }
                // NB: an entry edited since it was read is left for the next batch.
                return try tx.markSent(change.entry, body: body).map { PendingChange(entry: $0, json: change.json) }
            }
        }
    }

    /// The request of an entry in flight: its kind, base and body as sent.
    private func operation(for change: PendingChange) throws -> BatchOperation {
        let entry = change.entry
        let path = KintoCollectionPath(entry.collection)
        let base = entry.baseLastModified.map(Int.init)
        let body = try entry.sentBody ?? RecordJSON.pushBody(change.json, collection: entry.collection, id: entry.recordID)
        switch entry.kind {
        case .create:
            return try BatchOperation.create(in: path, id: entry.recordID, data: body)
        case .update:
            return try BatchOperation.update(in: path, id: entry.recordID, data: body, ifMatch: base)
        case .delete:
            return try BatchOperation.delete(in: path, id: entry.recordID, ifMatch: base)
        }
    }

    /// Stores a batch's answers in one transaction.
    private func store(_ results: [BatchResult], for changes: [PendingChange]) throws -> BatchSummary {
        let merger = MergeApplier(policy: options.policy, now: now)
        for result in results { noteBackoff(HeaderValues.backoff(result.headers["Backoff"])) }
        return try store.write { tx in
            var summary = BatchSummary()
            for (change, result) in zip(changes, results) {
                let entry = change.entry
                let collection = entry.collection
                let id = entry.recordID
                if result.isSuccess {
                    let server = try result.record()
                    try tx.acknowledgePush(entry, server: server)
                    summary.accepted[collection, default: 0] += 1
                    summary.highest[collection] = max(summary.highest[collection] ?? server.lastModified, server.lastModified)
                    continue
                }
                switch (result.status, result.error) {
                case (412, .preconditionFailed(_, let existing)?):
                    // NB: what was sent, already applied (a retry after a lost reply),
                    // comes back as a 412 whose existing record is what was sent.
                    let remote = existing
                    let merged = try merger.apply(collection, id: id, remote: remote, in: tx)
                    if merged == .acknowledged {
                        summary.accepted[collection, default: 0] += 1
                        if let stamp = remote?.lastModified {
                            summary.highest[collection] = max(summary.highest[collection] ?? stamp, stamp)
                        }
                    } else {
                        summary.merges[collection, default: []].append((id, merged))
                    }
                case (404, _) where entry.kind == .delete:
                    // Already gone on the server: the deletion is done.
                    let tombstone = RawRecord(
                        id: id, lastModified: entry.baseLastModified ?? 0, isDeleted: true,
                        json: Data(#"{"deleted":true}"#.utf8))
                    try tx.acknowledgePush(entry, server: tombstone)
                    summary.accepted[collection, default: 0] += 1
                case (404, _):
                    // The record went away on the server: an edit-versus-delete merge.
                    let merged = try merger.apply(collection, id: id, remote: nil, in: tx)
                    if merged == .acknowledged {
                        summary.accepted[collection, default: 0] += 1
                    } else {
                        summary.merges[collection, default: []].append((id, merged))
                    }
                case (401, let error):
                    summary.authentication = error?.description ?? "authentication failed (401)"
                case (let status, let error) where status == 408 || status == 429 || status >= 500:
                    summary.transient.append(error?.description ?? "HTTP \(status)")
                case (let status, let error):
                    // Refused for good (400 schema or size, 403 on this collection…): park it
                    // with the server's reason so the rest of the outbox goes through.
                    let reason = Self.reason(error, status: status)
                    _ = try tx.moveToDeadLetters(entry, status: status, reason: reason)
                    summary.deadLetters.append((collection, id, status, reason))
                }
            }
            for (collection, highest) in summary.highest {
                try tx.updateSyncState(collection) { state in
                    state.pushedTimestamp = max(state.pushedTimestamp ?? highest, highest)
                }
            }
            return summary
        }
    }

    /// The server's own words when it gave them (`message`, plus `details` for schema errors).
    private static func reason(_ error: APIError?, status: Int) -> String {
        guard let failure = error?.httpFailure, let body = failure.serverError else {
            return error?.description ?? "HTTP \(status)"
        }
        return "HTTP \(status) \(body.error ?? ""): \(body.message ?? "")".trimmingCharacters(in: .whitespaces)
    }
}
