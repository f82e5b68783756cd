import Domain
import Foundation
import Records
import Services
import Storage

// MARK: - Push

extension SyncRun {
    /// A change the server refused for good, parked as a dead letter.
    private struct ParkedChange {
        let collection: CollectionName
        let id: String
        let status: Int
        let reason: String
    }

    /// What the server said to one batch, once stored.
    private struct BatchSummary {
        var accepted: [CollectionName: Int] = [:]
        var merges: [CollectionName: [MergedRecord]] = [:]
        var deadLetters: [ParkedChange] = []
        /// Changes that failed transiently and stay queued for another attempt.
        var transient: [String] = []
        /// Why the run stops (refused credentials), once the batch's answers are stored.
        var stop: SyncStop?
        /// The highest timestamp the server gave an accepted change, per collection.
        var highest: [CollectionName: Int64] = [:]
        /// Acknowledged writes another device's concurrent write replaced (`OverwrittenWrites`).
        var overwritten: [CollectionName: [String]] = [:]
        /// Server versions the rules against a hostile server refused (`IntegrityGate`).
        var refusals: [CollectionName: [IntegrityRefusal]] = [:]
        /// The last write the server stored as sent, which the bucket's history must show (`HistoryGate`).
        var stored: BucketHistoryState.Proof?

        var madeProgress: Bool {
            !accepted.isEmpty || !merges.isEmpty || !deadLetters.isEmpty
        }

        /// The server has a change, stored at `stamp` when it said so.
        mutating func accept(_ collection: CollectionName, stamp: Int64?) {
            accepted[collection, default: 0] += 1
            if let stamp { highest[collection] = max(highest[collection] ?? stamp, stamp) }
        }

        /// A change met a newer server version and was merged; an echo of what was sent
        /// is its acknowledgement.
        mutating func merged(_ collection: CollectionName, id: String, _ result: MergeApplier.Result, stamp: Int64?) {
            if result == .acknowledged {
                accept(collection, stamp: stamp)
            } else {
                merges[collection, default: []].append(MergedRecord(id: id, result: result))
            }
        }
    }

    /// One batch's request, done on a task of its own: the changes it carries (marked
    /// sent before it left) and what came back.
    private struct SentBatch: Sendable {
        var changes: [PendingChange]
        var answer: Result<[BatchResult], any Error>
        /// Requests made for it, retries included.
        var attempts: Int
    }

    /// Pushes the outbox, a `POST /batch` of at most `batchSize` changes at a time:
    /// creates with `If-None-Match: *`, updates and deletes with `If-Match: "<base>"`.
    /// Each batch's answers are stored in one transaction.
    ///
    /// Several batches wait for their answers at once (`maximumBatchesInFlight`), but
    /// never two writing to the same collection. Kinto's PostgreSQL storage stamps a
    /// collection's records from one clock inside each batch's transaction: two batches
    /// writing to one collection at once clash on a timestamp (a 409 that rolls back
    /// the other answers of its batch), or commit out of timestamp order, and a device
    /// pulling `_since` between the two commits would never see the earlier one's
    /// records. A batch also holds every change to its records, so a record's next
    /// change is never read before its earlier one is answered: a change in flight is
    /// only sent again, as it was, by a later batch. Within a collection, changes go
    /// out in outbox order.
    ///
    /// Collections the server refused this run are left out: their changes wait. On a
    /// read-only server nothing is sent; the changes are counted for the run's message.
    /// When one batch fails the run (credentials, `Backoff`, retries exhausted), no
    /// further batch leaves, and the answers of those in flight are stored first.
    func pushAll() async throws {
        if pushHold == nil, !unknownKeys.isEmpty {
            pushHold = """
                records are sealed under key\(unknownKeys.count == 1 ? "" : "s") \(unknownKeys.sorted().joined(separator: ", ")) \
                that this device's keyring does not list: it is out of date (another device rotated) or the server rolled \
                it back; run 'shelf encryption join'; local changes wait
                """
        }
        // NB: a device that knows its key is not the current one never seals under it.
        let held = pushHold != nil
        let collections = options.collections.filter { !$0.isReadOnly && unavailable[$0] == nil && !(held && WireSealing.seals($0)) }
        guard !collections.isEmpty else { return }
        let waiting = try store.read { reader in
            try collections.reduce(0) { $0 + (try reader.pendingCount(in: $1)) }
        }
        if options.serverIsReadOnly {
            waitingForWritableServer = waiting
            return
        }
        guard waiting > 0 else { return }
        let everyWritable = Set(collections) == Set(CollectionName.writable)
        // Bounded: a change merged after a 412 is pushed again, but a server that keeps
        // changing under every attempt must not keep the run alive forever. Beyond the
        // batches the waiting changes need (one more per collection for its last, partial
        // batch), `max(64, 4 × attempts)` rounds are left for such repeats.
        let rounds = (waiting + options.batchSize - 1) / options.batchSize + collections.count
            + max(64, 4 * options.retry.maxAttempts)
        var schedule = PushSchedule(
            rounds: rounds, maximumInFlight: options.maximumBatchesInFlight, maximumFailedRounds: options.retry.maxAttempts)
        try await withThrowingTaskGroup(of: SentBatch.self) { group in
            while true {
                switch schedule.next() {
                case .sendNextBatch:
                    let pending = try nextChanges(collections, all: everyWritable, busy: schedule.busy)
                    guard !pending.isEmpty else {
                        schedule.nothingToSend()
                        continue
                    }
                    schedule.batchRead()
                    let changes = try markSent(pending)
                    guard !changes.isEmpty else { continue }  // all edited since read: read again
                    group.addTask(operation: try sending(changes))
                    schedule.sent(to: Set(changes.map(\.entry.collection)))
                case .awaitAnswer:
                    guard let sent = try await group.next() else { return }
                    schedule.answered(Set(sent.changes.map(\.entry.collection)))
                    try await take(sent, into: &schedule)
                case .finish(let roundsSpent):
                    if roundsSpent, try !nextChanges(collections, all: everyWritable, busy: []).isEmpty {
                        throw SyncStop.temporary("push: the server kept changing the same records; the rest waits for the next run")
                    }
                    return
                case .fail:
                    if let stop = schedule.stop { throw stop }
                    return
                }
            }
        }
    }

    /// The request of one batch of changes already marked sent, for a task of its own.
    private func sending(_ changes: [PendingChange]) throws -> @Sendable () async -> SentBatch {
        let operations = try changes.map(operation(for:))
        let batch = KintoBatchService(client: engine.client, maximumRequests: options.batchSize)
        let what = "push \(changes.count) change\(changes.count == 1 ? "" : "s")"
        let (policy, clock, onEvent) = (options.retry, engine.clock, onEvent)
        return {
            var attempts = 0
            do {
                let results = try await Self.retrying(
                    what, policy: policy, clock: clock, onEvent: onEvent, countAttempt: { attempts += 1 }
                ) { try await batch.send(operations) }
                return SentBatch(changes: changes, answer: .success(results), attempts: attempts)
            } catch {
                return SentBatch(changes: changes, answer: .failure(error), attempts: attempts)
            }
        }
    }

    /// Stores a batch's answer and reports it; tells the schedule what it leads to, and
    /// waits before the next round when the round made no progress.
    private func take(_ sent: SentBatch, into schedule: inout PushSchedule) async throws {
        report.requests += sent.attempts
        let results: [BatchResult]
        switch sent.answer {
        case .success(let answered):
            results = answered
        case .failure(let error):
            schedule.stopping(error)
            return
        }
        let summary = try storeAnswers(results, for: sent.changes)
        reportStored(summary)
        if let stop = summary.stop {
            schedule.stopping(stop)
            return
        }
        do { try honourBackoff() } catch {
            schedule.stopping(error)
            return
        }
        guard schedule.stop == nil else { return }
        let reason = summary.transient.first ?? "the server did not accept the changes"
        switch schedule.stored(madeProgress: summary.madeProgress) {
        case .carryOn:
            break
        case .retry(let attempt):
            let delay = options.retry.delay(beforeRetry: attempt, using: &randomness)
            emit(.retrying(attempt: attempt + 1, delay: delay, reason: "push: \(reason)"))
            try await engine.clock.sleep(delay)
        case .gaveUp(let attempts):
            schedule.stopping(SyncStop.temporary("push: \(reason) (gave up after \(attempts) attempts)"))
        }
    }

    /// Events and counts for a stored batch's answers.
    private func reportStored(_ summary: BatchSummary) {
        for (collection, count) in summary.accepted.sorted(by: { $0.key < $1.key }) {
            emit(.pushed(collection, count: count))
            collectionReport(collection) { $0.pushed += count }
        }
        for (collection, ids) in summary.overwritten { noteOverwritten(ids, in: collection) }
        for (collection, refusals) in summary.refusals { noteRefusals(refusals, in: collection) }
        for (collection, merges) in summary.merges { record(merges, in: collection) }
        for letter in summary.deadLetters {
            emit(.deadLettered(letter.collection, id: letter.id, status: letter.status, reason: letter.reason))
            collectionReport(letter.collection) { $0.deadLetters += 1 }
        }
    }

    // MARK: Steps

    /// The changes of the next batch, in outbox order, none of a collection that a
    /// batch in flight (`busy`) writes to.
    ///
    /// When everything waiting fits in one batch, it goes in one, whatever its
    /// collections: one round trip, as a small sync has always taken. When more waits,
    /// a batch holds one collection's changes — the collection whose change has waited
    /// longest among those no batch is writing to — so that other collections' batches
    /// can be in flight beside it.
    ///
    /// NB: the head of the outbox (`headSize` changes, read in its own order) usually
    /// decides; a collection's own list is read only past it. Reading a large
    /// collection's list for every batch sorts all its waiting changes each time: a
    /// 10,000-change push spent 2.5 s of CPU that way.
    private func nextChanges(_ collections: [CollectionName], all: Bool, busy: Set<CollectionName>) throws -> [PendingChange] {
        let size = options.batchSize
        let headSize = size * 8
        let idle = Set(collections).subtracting(busy)
        return try store.read { reader in
            let head = try reader.pendingChanges(limit: headSize)
            if all, busy.isEmpty, head.count <= size { return head }
            let waitingHere = head.filter { idle.contains($0.entry.collection) }
            if let oldest = waitingHere.first?.entry.collection {
                let batch = Array(waitingHere.lazy.filter { $0.entry.collection == oldest }.prefix(size))
                if batch.count == size || head.count < headSize { return batch }
                return try reader.pendingChanges(in: oldest, limit: size)
            }
            guard head.count == headSize else { return [] }
            var next: [PendingChange] = []
            for collection in collections where idle.contains(collection) {
                let changes = try reader.pendingChanges(in: collection, limit: size)
                guard let first = changes.first?.entry.sequence else { continue }
                if next.first.map({ first < $0.entry.sequence }) ?? true { next = changes }
            }
            return next
        }
    }

    /// Marks the changes as sent, with their bodies, in one transaction before the
    /// request leaves: a reply lost after the server applied them must not turn them
    /// back into unsent changes. Changes already in flight are sent again as they were.
    private func markSent(_ pending: [PendingChange]) throws -> [PendingChange] {
        let changes = try renumberInFlight(pending)
        guard changes.contains(where: { !$0.entry.isInFlight }) else { return changes }
        let bodies = try changes.map { change in
            change.entry.isInFlight || change.entry.kind == .delete
                ? nil : try RecordJSON.pushBody(change.json, collection: change.entry.collection, id: change.entry.recordID)
        }
        let numbered = sealing.isSealed
        return try store.write { tx in
            try zip(changes, bodies).compactMap { change, body in
                guard !change.entry.isInFlight else { return change }
                // NB: an entry edited since it was read is left for the next batch.
                let sealedHere = numbered && WireSealing.seals(change.entry.collection)
                return try SyncRules(tx).markSent(change.entry, body: body, numbered: sealedHere).map { PendingChange(entry: $0, json: change.json) }
            }
        }
    }

    /// On an encrypted account, changes in flight numbered against a version that is no
    /// longer the newest this device knows are renumbered before they go again
    /// (`SyncRules.renumberInFlight`).
    private func renumberInFlight(_ changes: [PendingChange]) throws -> [PendingChange] {
        guard sealing.isSealed, changes.contains(where: { $0.entry.isInFlight && $0.entry.sentBody != nil }) else { return changes }
        return try store.write { tx in
            try changes.map { change in
                guard WireSealing.seals(change.entry.collection), let body = try SyncRules(tx).renumberInFlight(change.entry) else {
                    return change
                }
                var renumbered = change
                renumbered.entry.sentBody = body
                return renumbered
            }
        }
    }

    /// The request of an entry in flight: its kind, base and body as sent.
    private func operation(for change: PendingChange) throws -> KintoRequest {
        let entry = change.entry
        let path = KintoCollectionPath(entry.collection)
        let base = entry.baseLastModified.map(Int.init)
        if entry.kind == .delete, sealing.isSealed, WireSealing.seals(entry.collection), let deletion = entry.sentBody {
            // NB: a reader's deletion on an encrypted account is a sealed record, so other
            // devices can tell it from a tombstone the server made alone (`IntegrityGate`);
            // one without a body deletes a record never sealed (`SyncRules.markSent`).
            let marker = try sealing.sealed(body: deletion, in: entry.collection, id: entry.recordID, deletion: true)
            // NB: over a tombstone the server made alone there is no version to name: the
            // deletion is a new record there (`OutboxEntry.serverTombstone`).
            if entry.serverTombstone != nil { return try KintoRequest.create(in: path, id: entry.recordID, data: marker) }
            return try KintoRequest.update(in: path, id: entry.recordID, data: marker, ifMatch: base)
        }
        let plain = try entry.sentBody ?? RecordJSON.pushBody(change.json, collection: entry.collection, id: entry.recordID)
        // NB: sealed as it leaves, with a fresh nonce each time: a repeat carries the same
        // fields, which is what an echo is recognised by once opened.
        let body = try sealing.sealed(body: plain, in: entry.collection, id: entry.recordID)
        switch entry.kind {
        case .create:
            return try KintoRequest.create(in: path, id: entry.recordID, data: body)
        case .update:
            return try KintoRequest.update(in: path, id: entry.recordID, data: body, ifMatch: base)
        case .delete:
            return try KintoRequest.delete(in: path, id: entry.recordID, ifMatch: base)
        }
    }

    /// Stores a batch's answers in one transaction: read first as values
    /// (`PushBatchAnswer`), then each carried out.
    private func storeAnswers(_ results: [BatchResult], for changes: [PendingChange]) throws -> BatchSummary {
        for result in results { noteBackoff(result.backoff) }
        let answers: [PushAnswer]
        switch try PushBatchAnswer.read(results, kinds: changes.map(\.entry.kind)) {
        case .rolledBack(let reason):
            var summary = BatchSummary()
            summary.transient.append(reason)
            return summary
        case .answered(let read):
            answers = read
        }
        let merger = MergeApplier(policy: options.policy, now: now)
        return try store.write { tx in
            var summary = BatchSummary()
            for (change, answer) in zip(changes, answers) {
                try carryOut(answer, for: change.entry, merger: merger, into: &summary, tx)
            }
            for (collection, highest) in summary.highest {
                try tx.updateSyncState(collection) { state in
                    state.pushedTimestamp = max(state.pushedTimestamp ?? highest, highest)
                }
            }
            if options.readsBucketHistory, let bucket = options.userBucket, let proof = summary.stored {
                try tx.noteBucketHistoryProof(proof, bucket: bucket)
            }
            return summary
        }
    }

    /// Carries out the server's answer to one change, in the batch's transaction.
    private func carryOut(
        _ answer: PushAnswer, for entry: OutboxEntry, merger: MergeApplier, into summary: inout BatchSummary,
        _ tx: StoreTransaction
    ) throws {
        let (collection, id) = (entry.collection, entry.recordID)
        switch answer {
        case .stored(let answered):
            let server = try storedVersion(of: entry, answer: answered)
            try SyncRules(tx).acknowledgePush(entry, server: server)
            summary.accept(collection, stamp: server.lastModified)
            summary.stored = BucketHistoryState.Proof(collection: collection.rawValue, id: id, version: server.lastModified)
        case .conflict(let sealedExisting):
            let existing: RawRecord?
            switch try readable(sealedExisting, of: collection, tx) {
            case .success(let opened): existing = opened
            case .failure(let refusal):
                // Nothing to merge with: the change stays in flight, as it was (aimed at the
                // server's version when this device refused it as put back or forged).
                if let integrity = refusal.integrity {
                    summary.refusals[collection, default: []].append(integrity)
                } else {
                    emit(.recordRefused(collection, id: id, reason: refusal.reason))
                }
                summary.transient.append("\(collection.rawValue)/\(id): the server's version was refused: \(refusal.reason)")
                return
            }
            if existing == nil, try deletionMeetsDeletionWithoutReader(entry, tx) {
                summary.transient.append("\(collection.rawValue)/\(id): deleted on the server without the reader; the reader's deletion goes up sealed")
                return
            }
            if existing == nil, try editMeetsDeletionWithoutReader(entry, tx) {
                emit(.recordRefused(collection, id: id, reason: "deleted on the server without the reader while an edit waited: the edited version goes back up"))
                summary.transient.append("\(collection.rawValue)/\(id): deleted on the server without the reader; sent again")
                return
            }
            if let existing {
                summary.overwritten[collection, default: []] += try OverwrittenWrites.reopen([existing], in: collection, tx)
            }
            summary.merged(collection, id: id, try merger.apply(collection, id: id, remote: existing, in: tx), stamp: existing?.lastModified)
        case .alreadyDeleted:
            let tombstone = RawRecord(
                id: id, lastModified: entry.baseLastModified ?? 0, isDeleted: true, json: Data(#"{"deleted":true}"#.utf8))
            try SyncRules(tx).acknowledgePush(entry, server: tombstone)
            summary.accept(collection, stamp: nil)
        case .goneOnServer:
            summary.merged(collection, id: id, try merger.apply(collection, id: id, remote: nil, in: tx), stamp: nil)
        case .keepInFlight(let reason):
            summary.transient.append(reason)
        case .stopRun(let error):
            summary.stop = summary.stop ?? SyncStop.from(error, now: now)
        case .deadLetter(let status, let reason):
            try SyncRules(tx).moveToDeadLetters(entry, status: status, reason: reason)
            summary.deadLetters.append(ParkedChange(collection: collection, id: id, status: status, reason: reason))
        }
    }

    /// The server's version of a write it acknowledged, as the store keeps it. For a
    /// sealed write the answer carries only ciphertext, and what it seals is exactly
    /// what was sent: that, in the clear, with the server's stamp. A sealed deletion is
    /// a record to the server and a tombstone here.
    private func storedVersion(of entry: OutboxEntry, answer: RawRecord) throws -> RawRecord {
        guard case .sealed = sealing, WireSealing.seals(entry.collection), !answer.isDeleted else { return answer }
        if entry.kind == .delete {
            return RawRecord(id: entry.recordID, lastModified: answer.lastModified, isDeleted: true, json: Data(#"{"deleted":true}"#.utf8))
        }
        guard let body = entry.sentBody else { return answer }
        var fields = try WireJSON.fields(body)
        fields["id"] = .string(entry.recordID)
        fields["last_modified"] = .number(Double(answer.lastModified))
        return RawRecord(id: entry.recordID, lastModified: answer.lastModified, json: try WireJSON.data(fields))
    }

    /// On an encrypted account, an edit whose record the server no longer has, though this
    /// device saw it sealed and no sealed deletion came: the server deleted it without the
    /// reader, who is still editing it. The edit goes back up as a create of the record,
    /// not merged as a deletion (`IntegrityGate`). - Returns: whether it was queued so.
    private func editMeetsDeletionWithoutReader(_ entry: OutboxEntry, _ tx: StoreTransaction) throws -> Bool {
        guard sealing.isSealed, WireSealing.seals(entry.collection), entry.kind != .delete,
              try tx.heldVersions(entry.collection, ids: [entry.recordID])[entry.recordID]?.sequence != nil,
              let row = try tx.record(entry.collection, id: entry.recordID, includingDeleted: true), !row.isDeleted
        else { return false }
        try tx.forgetServerDeletion(entry.collection, id: entry.recordID)
        return try SyncRules(tx).requeue(row)
    }

    /// On an encrypted account, the reader's deletion of a record the server no longer has
    /// (a tombstone it made alone, or none): it is not settled by the server's, which no
    /// key vouches for, but sent again as a new sealed record, so every device learns it is
    /// the reader's (`IntegrityGate`). That holds for a deletion still waiting behind a
    /// change in flight as well (`deletionWaitsBehind`). - Returns: whether it was queued so.
    private func deletionMeetsDeletionWithoutReader(_ entry: OutboxEntry, _ tx: StoreTransaction) throws -> Bool {
        guard sealing.isSealed, WireSealing.seals(entry.collection) else { return false }
        guard entry.kind == .delete else { return try deletionWaitsBehind(entry, tx) }
        guard entry.sentBody != nil, entry.serverTombstone == nil else { return false }
        try tx.setServerTombstone(entry.sequence, stamp: entry.baseLastModified ?? 0)
        return true
    }

    /// A change in flight of a record the server no longer has, which the reader removed
    /// after it went out (the row is hidden, the deletion waits behind it), on a record
    /// this device saw sealed. The change is moot, and the reader's deletion must not be
    /// settled by the server's tombstone: it is queued over that tombstone, to go up as a
    /// sealed deletion. It is numbered above what was in flight, which the server may have
    /// applied before it lost the record: the base becomes what was sent.
    /// - Returns: whether it was queued so.
    private func deletionWaitsBehind(_ entry: OutboxEntry, _ tx: StoreTransaction) throws -> Bool {
        let (collection, id) = (entry.collection, entry.recordID)
        guard try tx.heldVersions(collection, ids: [id])[id]?.sequence != nil,
              let row = try tx.record(collection, id: id, includingDeleted: true), row.isDeleted,
              let current = try tx.outboxEntry(collection, id: id)
        else { return false }
        if let sent = entry.sentBody {
            var fields = try WireJSON.fields(sent)
            fields["id"] = .string(id)
            try tx.writeBase(BaseSnapshot(collection: collection, recordID: id, json: try WireJSON.data(fields), lastModified: entry.baseLastModified ?? 0))
        }
        try tx.forgetServerDeletion(collection, id: id)
        try tx.clearSent(current.sequence)
        let queued = try tx.writeOutbox(collection, id: id, kind: .delete, base: entry.baseLastModified, waiting: current)
        try tx.setServerTombstone(queued.sequence, stamp: entry.baseLastModified ?? 0)
        return true
    }

    /// Why a 412's existing record is not merged with.
    private struct UnreadableExisting: Error {
        let reason: String
        /// Set when the record opened but the rules against a hostile server refused it.
        var integrity: IntegrityRefusal?
    }

    /// A 412's existing record, opened and passed through the rules against a hostile
    /// server (`IntegrityGate`), in the batch's transaction; nil stays nil (the record was
    /// deleted).
    private func readable(_ record: RawRecord?, of collection: CollectionName, _ tx: StoreTransaction) throws -> Result<RawRecord?, UnreadableExisting> {
        guard let record else { return .success(nil) }
        let opened = sealing.opened([record], in: collection)
        if opened.metSealedRecords {
            return .failure(UnreadableExisting(reason: WireSealing.lockedReason))
        }
        if let refusal = opened.refused.first { return .failure(UnreadableExisting(reason: refusal.reason)) }
        guard let gate = integrityGate(for: opened, in: collection) else { return .success(opened.records.first) }
        let admission = try gate.admit(opened.records, in: collection, tx)
        if let refusal = admission.refusals.first {
            return .failure(UnreadableExisting(reason: refusal.reason, integrity: refusal))
        }
        try settle(admission, in: collection, tx)
        return .success(admission.admitted.first)
    }
}
