import Domain
import Foundation
import Records

// MARK: - PushBody

/// The body a record is pushed with: its JSON object without the fields the server
/// owns (`id`, `last_modified`, `deleted`), keys sorted. Kinto would otherwise take a
/// stale `last_modified` from the body as the record's timestamp.
///
/// One definition for the sync engine's pushes and the store's own queued requests, so
/// that a request repeated or compared later is byte for byte the one first built.
public enum PushBody {
    /// - Throws: `StorageError.invalidRecord` when `json` is not a JSON object.
    public static func of(_ json: Data, collection: CollectionName, id: String) throws(StorageError) -> Data {
        do {
            var fields = try WireJSON.fields(json)
            ServerOwnedFields.removeAll(from: &fields)
            return try WireJSON.data(fields)
        } catch {
            throw .invalidRecord(collection: collection, id: id, reason: "\(error)")
        }
    }

    /// A push body with the write's lineage (`RecordLineage.field`) set, and its sequence
    /// number (`VersionFields.sequence`) when the account numbers its versions (encrypted).
    /// - Throws: `StorageError.invalidRecord` when `body` is not a JSON object.
    public static func stamping(
        _ body: Data, lineage: [String], sequence: Int64? = nil, collection: CollectionName, id: String
    ) throws(StorageError) -> Data {
        do {
            var fields = try WireJSON.fields(body)
            fields[RecordLineage.field] = .array(lineage.map(JSONValue.string))
            if let sequence { fields[VersionFields.sequence] = .number(Double(sequence)) } else { fields.removeValue(forKey: VersionFields.sequence) }
            return try WireJSON.data(fields)
        } catch {
            throw .invalidRecord(collection: collection, id: id, reason: "\(error)")
        }
    }
}
