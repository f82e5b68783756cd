import Vocabulary

// MARK: - RecordAddress

/// Where a sealed record lives on the server: bucket, collection and record id.
///
/// All three go into the authenticated data of the record's seal, so a ciphertext copied
/// to another record, collection or bucket does not open there.
public struct RecordAddress: Hashable, Sendable, CustomStringConvertible {
    public let bucket: String
    public let collection: String
    public let id: String

    public init(bucket: String, collection: String, id: String) {
        self.bucket = bucket
        self.collection = collection
        self.id = id
    }

    public init(bucket: String, collection: CollectionName, id: String) {
        self.init(bucket: bucket, collection: collection.rawValue, id: id)
    }

    public var description: String { "record \(collection)/\(id) in bucket \(bucket)" }
}
