import Domain
import Foundation
import Records
import Services
import Storage

// MARK: - Record JSON

/// Conversions between the forms a record takes on its way through a sync: the
/// server's raw bytes, the store's rows, and field dictionaries for merges.
enum RecordJSON {
    /// Fields of a stored JSON object; nil for no record.
    static func fields(_ data: Data?) throws -> [String: JSONValue]? {
        guard let data else { return nil }
        return try WireJSON.fields(data)
    }

    /// Merged content as the JSON the store keeps, with the record's id.
    static func data(_ fields: [String: JSONValue], id: String) throws -> Data {
        var record = fields
        record["id"] = .string(id)
        return try WireJSON.data(record)
    }

    /// The body to push: the record without the fields the server owns (`PushBody`).
    static func pushBody(_ data: Data, collection: CollectionName, id: String) throws -> Data {
        try PushBody.of(data, collection: collection, id: id)
    }
}
