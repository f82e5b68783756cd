import Domain
import Foundation

// MARK: - Conflict

/// A record changed on both sides in a way the merge policy left to the reader,
/// kept until `shelf resolve` settles it. At most one per record.
public struct Conflict: Hashable, Sendable {
    public var collection: CollectionName
    public var recordID: String
    /// The common ancestor; nil when both sides created the same id independently.
    public var base: Data?
    /// The local version; nil when the reader deleted the record.
    public var local: Data?
    /// The server's version; nil when the server deleted the record.
    public var remote: Data?
    /// The server's `last_modified` for `remote` (or of its tombstone), which a
    /// resolution pushes against.
    public var remoteLastModified: Int64?
    public var detectedAt: Date

    public init(
        collection: CollectionName, recordID: String, base: Data?, local: Data?, remote: Data?,
        remoteLastModified: Int64?, detectedAt: Date
    ) {
        self.collection = collection
        self.recordID = recordID
        self.base = base
        self.local = local
        self.remote = remote
        self.remoteLastModified = remoteLastModified
        self.detectedAt = detectedAt
    }
}
