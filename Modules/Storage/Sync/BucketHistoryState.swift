import Foundation

// MARK: - BucketHistoryState

/// How far this store has read the server's history of the reader's bucket
/// (`kinto.plugins.history`), which Sync's `HistoryGate` reads instead of asking every
/// collection when nothing changed. Its stamps are on the history's own timeline, so they
/// are kept apart from any collection's, with the same commit-window bookkeeping
/// (`SyncState.cursor`, `settled`, `serverClock`). Kept in the device's `preferences`
/// table, as the idle streak is: it is a hint this device keeps, and losing it only costs
/// one ordinary run.
public struct BucketHistoryState: Sendable, Equatable, Codable {
    /// The bucket the stamps are of; a state of another bucket is no state.
    public var bucket: String
    /// The highest entry stamp read (or the history's timestamp when it was first read).
    public var cursor: Int64
    /// Every entry stamped at or before this was read; nil until a read settles it.
    public var settled: Int64?
    /// A lower bound of the server's clock, and when this machine saw it.
    public var clockTimestamp: Int64?
    public var clockSeenAt: Date?
    /// When a run last asked every collection, as it does without the history: the history
    /// reading is only trusted for so long after it (`HistoryGate.fullCheckEvery`).
    public var fullCheckAt: Date
    /// Entries (id: stamp) a run read before it asked every collection and pulled them to
    /// the end: what they say is in the store, whatever they are. Kept until the settled
    /// stamp passes them, after which no read returns them again.
    public var covered: [String: Int64]
    /// A write of this device's that the server stored after the last read: the next read
    /// must show it, or the server does not record this bucket's history (`HistoryGate`).
    public var proof: Proof?
    /// The history failed its proof: it is not read until then.
    public var distrustedUntil: Date?

    /// One stored write: its collection, record id and the version the server gave it.
    public struct Proof: Sendable, Equatable, Codable {
        public var collection: String
        public var id: String
        public var version: Int64

        public init(collection: String, id: String, version: Int64) {
            self.collection = collection
            self.id = id
            self.version = version
        }
    }

    public init(
        bucket: String, cursor: Int64, settled: Int64? = nil, serverClock: ServerClockReading? = nil, fullCheckAt: Date,
        covered: [String: Int64] = [:]
    ) {
        self.bucket = bucket
        self.cursor = cursor
        self.settled = settled
        self.clockTimestamp = serverClock?.timestamp
        self.clockSeenAt = serverClock?.seenAt
        self.fullCheckAt = fullCheckAt
        self.covered = covered
    }

    /// The server's clock as last read, when both halves are known.
    public var serverClock: ServerClockReading? {
        ServerClockReading(timestamp: clockTimestamp, seenAt: clockSeenAt)
    }
}

extension StoreReader {
    /// The history reading of `bucket`; nil when none was kept, it was of another bucket,
    /// or it does not read (the next run then reads the history afresh, which an ordinary
    /// run pays for: it never stops a sync).
    public func bucketHistory(of bucket: String) throws(StorageError) -> BucketHistoryState? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        guard let data = try preference(Self.bucketHistoryKey), data.count <= 64 * 1024,
              let state = try? decoder.decode(BucketHistoryState.self, from: data),
              state.bucket == bucket, state.cursor >= 0
        else { return nil }
        return state
    }

    static let bucketHistoryKey = "bucket_history"
}

extension StoreTransaction {
    /// Notes `proof`, a write the server just stored, on the reading of `bucket`; nothing
    /// when there is none (the next reading is taken after this write).
    public func noteBucketHistoryProof(_ proof: BucketHistoryState.Proof, bucket: String) throws(StorageError) {
        guard var state = try bucketHistory(of: bucket), state.distrustedUntil == nil else { return }
        state.proof = proof
        try setBucketHistory(state)
    }

    /// Keeps `state`, or forgets the reading when nil.
    public func setBucketHistory(_ state: BucketHistoryState?) throws(StorageError) {
        guard let state else {
            try db.run("DELETE FROM preferences WHERE key = ?", [.text(Self.bucketHistoryKey)], operation: "forget the bucket's history reading")
            return
        }
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .millisecondsSince1970
            data = try encoder.encode(state)
        } catch {
            throw .corruptValue(what: "the bucket's history reading", reason: "cannot encode: \(error)")
        }
        try setPreference(Self.bucketHistoryKey, data)
    }
}
