import Domain
import Foundation

// MARK: - BaseSnapshot

/// The record as last seen from the server, kept while a local change to it waits:
/// the common ancestor of a three-way merge.
///
/// The store takes the snapshot itself when the first local edit of a synced record
/// happens (the row's content at that moment is what the server had), keeps it through
/// further edits, and drops it when the push is acknowledged. A record without pending
/// changes needs no snapshot: its row is the server's version.
public struct BaseSnapshot: Hashable, Sendable {
    public var collection: CollectionName
    public var recordID: String
    public var json: Data
    public var lastModified: Int64

    public init(collection: CollectionName, recordID: String, json: Data, lastModified: Int64) {
        self.collection = collection
        self.recordID = recordID
        self.json = json
        self.lastModified = lastModified
    }
}
