import Domain
import Foundation

// MARK: - DeadLetter

/// A local change the server refused for good (a 4xx other than a conflict), moved
/// out of the outbox so the rest can sync, and kept visible until the reader retries
/// or discards it.
public struct DeadLetter: Hashable, Sendable, Identifiable {
    public var id: Int64
    public var collection: CollectionName
    public var recordID: String
    public var kind: OutboxEntry.Kind
    public var baseLastModified: Int64?
    /// The content that was refused.
    public var json: Data
    /// The HTTP status of the refusal.
    public var status: Int
    /// The server's reason (its `message`), or the client's when it gave none.
    public var reason: String
    /// When the change was first queued and when the server refused it.
    public var queuedAt: Date
    public var failedAt: Date

    public init(
        id: Int64, collection: CollectionName, recordID: String, kind: OutboxEntry.Kind,
        baseLastModified: Int64?, json: Data, status: Int, reason: String, queuedAt: Date, failedAt: Date
    ) {
        self.id = id
        self.collection = collection
        self.recordID = recordID
        self.kind = kind
        self.baseLastModified = baseLastModified
        self.json = json
        self.status = status
        self.reason = reason
        self.queuedAt = queuedAt
        self.failedAt = failedAt
    }
}
