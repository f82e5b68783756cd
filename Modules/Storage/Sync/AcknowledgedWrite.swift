import Domain
import Foundation

// MARK: - AcknowledgedWrite

/// A write the server acknowledged, remembered with the version it was based on, so
/// that the sync engine can tell when another device's write replaced it unseen: an
/// update, or a create sent against a version (a record edited here that the server
/// lost, or that a hostile server deleted, goes back up as a create that keeps its base).
///
/// Kinto checks `If-Match` before it writes, without a lock: two devices that update
/// one record at the same moment, both against the same version, can both be answered
/// 200, and the later write — which never saw the earlier — replaces it whole. The
/// earlier device's edit was acknowledged and is gone from the server. Such a record,
/// when pulled, names the earlier write's parent in its lineage (`RecordLineage`) but
/// not the write itself; the sync engine then queues the write again as a change
/// against its parent (`SyncRules.reopen`), and merges it three ways with what the server has.
public struct AcknowledgedWrite: Hashable, Sendable {
    public var collection: CollectionName
    public var recordID: String
    /// The lineage id the write carried.
    public var revision: String
    /// The last lineage id of the version it was based on; nil when that version had none.
    public var parent: String?
    /// The version it was based on, and that version's server timestamp.
    public var base: Data
    public var baseLastModified: Int64
    /// The record as the server stored the write, and its timestamp.
    public var written: Data
    public var writtenLastModified: Int64

    public init(
        collection: CollectionName, recordID: String, revision: String, parent: String?, base: Data,
        baseLastModified: Int64, written: Data, writtenLastModified: Int64
    ) {
        self.collection = collection
        self.recordID = recordID
        self.revision = revision
        self.parent = parent
        self.base = base
        self.baseLastModified = baseLastModified
        self.written = written
        self.writtenLastModified = writtenLastModified
    }

    /// Entries older than this are dropped: two writes that raced are pulled by the next
    /// syncs, not weeks later.
    public static let maximumAge: TimeInterval = 30 * 24 * 3600
    /// At most this many entries are kept, the newest (each about the size of two
    /// versions of a record).
    public static let maximumCount = 2000
}
