import Domain

// MARK: - SyncEvent

/// What a sync run is doing, as it happens: the worker logs each event as one line and
/// the CLI draws them as progress.
public enum SyncEvent: Sendable, Equatable {
    case runStarted(collections: [CollectionName])
    case collectionStarted(CollectionName)
    /// The server answered 304: nothing changed since the last run.
    case notModified(CollectionName)
    /// One page of server changes applied in one transaction.
    case pageApplied(CollectionName, PageCounts)
    /// A batch of local changes the server accepted.
    case pushed(CollectionName, count: Int)
    /// A record whose local and server changes merged without a clash.
    case merged(CollectionName, id: String)
    /// A clash left for `shelf resolve` (policy `manual`).
    case conflict(CollectionName, id: String, MergeConflict)
    /// The policy (server wins) dropped local values that clashed with the server's;
    /// `clash` names the fields (empty for a whole record: edit versus delete).
    case discardedLocalChange(CollectionName, id: String, MergeConflict)
    /// The server lost data this store had synced (the collection was deleted and
    /// recreated, or restored from an older backup): its records are pulled again and
    /// what it no longer has is uploaded again.
    case serverForgot(CollectionName, reason: String)
    /// Local records the server no longer had, queued to be uploaded again.
    case reuploading(CollectionName, count: Int)
    /// A change the server refused for good, moved to the dead letters.
    case deadLettered(CollectionName, id: String, status: Int, reason: String)
    /// A pulled record longer than `SyncOptions.maximumRecordBytes`: not stored, counted
    /// in the report; the pull goes on past it.
    case recordSkipped(CollectionName, id: String, bytes: Int, limit: Int)
    /// A record from the server that did not open (`WireSealing`): not applied, the local
    /// record kept; the pull goes on past it.
    case recordRefused(CollectionName, id: String, reason: String)
    /// The server's keyring was refused (altered, older than one seen, deleted); `reason`
    /// says what was put back.
    case keyringRefused(reason: String)
    /// The server's history of the bucket does not show a write this device made: the
    /// server does not record it (`HistoryGate`). Every collection is asked at every run
    /// for a day; `reason` names the write.
    case historyDistrusted(reason: String)
    /// Pulled records stamped behind the cursor that the store did not hold: their
    /// writes committed after later ones (`CommitWindow`); applied like any pulled change.
    case lateRecords(CollectionName, count: Int)
    /// An update this device made, which the server acknowledged, was replaced by another
    /// device's concurrent write that never saw it (Kinto checks `If-Match` without a
    /// lock): queued again and merged with the server's version (`OverwrittenWrites`).
    case writeOverwritten(CollectionName, id: String)
    /// The collection was compared with the server (`Reconciliation`: counts of ranges of
    /// stamps, listings where they differ); what differed was pulled and applied.
    case reconciled(CollectionName, ReconciliationReport)
    /// A transient failure about to be retried after `delay`.
    case retrying(attempt: Int, delay: Duration, reason: String)
    /// The server refused a collection for good this run (403/404: the optional shared
    /// catalog missing, a collection this account may not read). The other collections
    /// sync; this one's local changes wait.
    case collectionUnavailable(CollectionName, reason: String)
    /// A collection's pull is complete (its local changes are pushed after every pull).
    case collectionFinished(CollectionName, CollectionReport)
    case runFinished(RunReport)
}

// MARK: - PageCounts

public struct PageCounts: Sendable, Equatable, Codable {
    /// Records created or updated locally from this page.
    public var applied: Int
    /// Tombstones applied (records deleted locally).
    public var deleted: Int
    /// Records pulled so far in this collection, this page included.
    public var totalSoFar: Int

    public init(applied: Int, deleted: Int, totalSoFar: Int) {
        self.applied = applied
        self.deleted = deleted
        self.totalSoFar = totalSoFar
    }
}
