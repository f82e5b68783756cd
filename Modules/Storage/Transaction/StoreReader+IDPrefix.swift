import Domain
import Records

// MARK: - Ids by prefix

/// A record's id with the words a person knows it by (a book's title, a product's name).
public struct LabeledID: Sendable, Equatable {
    public let id: String
    /// nil when the record has no such field (or not as text).
    public let label: String?

    public init(id: String, label: String?) {
        self.id = id
        self.label = label
    }
}

extension StoreReader {
    /// The live records of `collection` whose id starts with `prefix`, in id order, at
    /// most `limit` — what a shell offers for a half-typed id.
    ///
    /// One range scan of the `(collection, id)` index, whatever the collection's size:
    /// ids sort bytewise, so those starting with the prefix lie between it and the
    /// prefix followed by the highest scalar.
    public func labeledIDs(_ collection: CollectionName, prefix: String, limit: Int) throws(StorageError) -> [LabeledID] {
        let field = WireNames.label(of: collection).map { "$." + $0 }
        return try db.query(
            """
            SELECT id, json_extract(json, ?) FROM records
            WHERE collection = ? AND deleted = 0 AND id >= ? AND id < ? ORDER BY id LIMIT ?
            """,
            [
                .text(field), .text(collection.rawValue),
                .text(prefix), .text(prefix + "\u{10FFFF}"), .integer(Int64(max(0, limit))),
            ],
            operation: "list \(collection.rawValue) ids by prefix"
        ) { row in LabeledID(id: row.text(0), label: row.optionalText(1)) }
    }
}

extension ShelfStore {
    /// `StoreReader.labeledIDs` in a read transaction of its own.
    public func labeledIDs(_ collection: CollectionName, prefix: String, limit: Int) throws(StorageError) -> [LabeledID] {
        try readTyped { (reader) throws(StorageError) in try reader.labeledIDs(collection, prefix: prefix, limit: limit) }
    }
}
