import Domain
import Foundation

// MARK: - SyncState

/// What the sync engine remembers about one collection between runs.
public struct SyncState: Hashable, Sendable {
    public var collection: CollectionName
    /// The highest `last_modified` applied locally: the next pull asks `_since` it.
    /// Advanced with each applied page, so a killed run resumes where it stopped.
    public var cursor: Int64?
    /// The collection's ETag from the last complete pull, for `If-None-Match` → 304.
    public var etag: String?
    /// The server asked to wait until then (`Backoff` / `Retry-After`); remembered
    /// across runs so a cron job doesn't hammer a throttled server.
    public var backoffUntil: Date?
    /// When this collection last synced without error.
    public var lastSuccess: Date?
    /// The last run's error for this collection, nil once a run succeeds.
    public var lastError: String?
    /// When `lastError` happened.
    public var lastErrorAt: Date?
    /// The `Next-Page` link of a pull that was interrupted between pages. Kinto's page
    /// tokens expire (600 s), so a resumed pull may drop it and start again from
    /// `cursor`, which is durable.
    public var nextPage: String?
    /// The `last_modified` of the server's collection object, as last seen. It changes
    /// only when the collection is deleted and recreated (or its metadata rewritten):
    /// a new value means the server may have lost records this store still has.
    public var collectionTimestamp: Int64?
    /// The server lost data (a new collection, or its records restored to a point
    /// behind `cursor`): pulls start from scratch, and local records the server no
    /// longer has are uploaded again, until one such pull completes.
    public var recovering: Bool
    /// While recovering: the cursor this store had reached when it noticed. A record
    /// the server has from before then, which this store no longer has, was deleted
    /// here after the server's backup was taken: the deletion is pushed again.
    public var cursorBeforeRecovery: Int64?
    /// The highest `last_modified` the server gave this store's own pushes. The cursor
    /// follows pulls only; together they say how far the server is known to have got.
    public var pushedTimestamp: Int64?
    /// Every record the server stamped at or before this is in the store: the next pull
    /// asks `_since` it, which may be behind `cursor` (Sync's `CommitWindow` says how
    /// far and why). Nil in a store that has not finished a pull since it had one.
    public var settled: Int64?
    /// A lower bound of the server's clock, and when this machine saw it.
    public var serverClock: ServerClockReading?
    /// When the last complete comparison of the collection with the server ended (Sync's
    /// `Reconciliation`).
    public var lastReconciled: Date?
    /// The cursor the last complete reconciliation (or a first pull) compared the
    /// collection up to. Nil: the next reconciliation lists the whole collection.
    public var reconciledThrough: Int64?
    /// A reconciliation under way has compared every record stamped up to this; the next
    /// run continues from it. Nil when none is under way.
    public var reconcilingFrom: Int64?
    /// How far the slow sweep (one slice of the older records listed whole per
    /// reconciliation) has come.
    public var sweptThrough: Int64?

    public init(
        collection: CollectionName, cursor: Int64? = nil, etag: String? = nil, backoffUntil: Date? = nil,
        lastSuccess: Date? = nil, lastError: String? = nil, lastErrorAt: Date? = nil, nextPage: String? = nil,
        collectionTimestamp: Int64? = nil, recovering: Bool = false, cursorBeforeRecovery: Int64? = nil,
        pushedTimestamp: Int64? = nil, settled: Int64? = nil, serverClock: ServerClockReading? = nil,
        lastReconciled: Date? = nil, reconciledThrough: Int64? = nil, reconcilingFrom: Int64? = nil,
        sweptThrough: Int64? = nil
    ) {
        self.collection = collection
        self.cursor = cursor
        self.etag = etag
        self.backoffUntil = backoffUntil
        self.lastSuccess = lastSuccess
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.nextPage = nextPage
        self.collectionTimestamp = collectionTimestamp
        self.recovering = recovering
        self.cursorBeforeRecovery = cursorBeforeRecovery
        self.pushedTimestamp = pushedTimestamp
        self.settled = settled
        self.serverClock = serverClock
        self.lastReconciled = lastReconciled
        self.reconciledThrough = reconciledThrough
        self.reconcilingFrom = reconcilingFrom
        self.sweptThrough = sweptThrough
    }

    /// The next run compares the whole collection with the server's list: it is due at
    /// once, and lists every record instead of counting ranges (a device that could not
    /// read some records before, and passed them by).
    public mutating func forgetReconciliation() {
        lastReconciled = Date(timeIntervalSince1970: 0)
        reconciledThrough = nil
        reconcilingFrom = nil
    }
}

// MARK: - ServerClockReading

/// A timestamp the server's clock had certainly reached (a collection timestamp it
/// reported: a record it had already stamped), with this machine's time just after
/// the answer arrived.
public struct ServerClockReading: Hashable, Sendable {
    /// Server time, in Kinto's milliseconds since 1970.
    public var timestamp: Int64
    /// This machine's clock when the answer carrying it had arrived.
    public var seenAt: Date

    public init(timestamp: Int64, seenAt: Date) {
        self.timestamp = timestamp
        self.seenAt = seenAt
    }

    /// Both columns, or none: a half-written reading is no reading.
    init?(timestamp: Int64?, seenAt: Date?) {
        guard let timestamp, let seenAt else { return nil }
        self.init(timestamp: timestamp, seenAt: seenAt)
    }
}
