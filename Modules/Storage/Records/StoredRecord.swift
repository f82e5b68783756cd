import Domain
import Foundation
import Records

// MARK: - StoredRecord

/// One record as the store holds it: the raw wire JSON plus what the sync engine
/// needs to know about it.
public struct StoredRecord: Hashable, Sendable, Identifiable {
    public var collection: CollectionName
    public var id: String
    /// The record's JSON object, in the Kinto wire shape (snake_case fields), exactly
    /// as the server sent it or as the local edit wrote it.
    public var json: Data
    /// The server's timestamp (ms) of the version this row is based on; nil for a
    /// local creation the server has never seen.
    public var lastModified: Int64?
    /// A local deletion waiting to be pushed. Such rows are hidden from lists and
    /// counts; the row stays so the push knows what it deletes.
    public var isDeleted: Bool

    public init(collection: CollectionName, id: String, json: Data, lastModified: Int64?, isDeleted: Bool = false) {
        self.collection = collection
        self.id = id
        self.json = json
        self.lastModified = lastModified
        self.isDeleted = isDeleted
    }
}

// MARK: - RawRecord from stored bytes

extension RawRecord {
    /// Reads `id`, `last_modified` and `deleted` from the record's own bytes, so a
    /// sync engine can hand over each record of a page without decoding it.
    /// - Throws: `StorageError.invalidRecord` when the bytes are not a JSON object
    ///   with a string `id` and an integer `last_modified`.
    public init(collection: CollectionName, json: Data) throws(StorageError) {
        let fields: WireFields
        do {
            fields = try WireFields.parse(json)
        } catch {
            throw .invalidRecord(collection: collection, id: "?", reason: "not a JSON object: \(error)")
        }
        guard let id = fields.string("id") else {
            throw .invalidRecord(collection: collection, id: "?", reason: "no string 'id'")
        }
        guard let lastModified = fields.integer("last_modified") else {
            throw .invalidRecord(collection: collection, id: id, reason: "no integer 'last_modified'")
        }
        self.init(id: id, lastModified: lastModified, isDeleted: fields.bool("deleted") ?? false, json: json)
    }
}
