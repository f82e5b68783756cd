import Domain
import Foundation
import RecordDTOs
import Records

// MARK: - WireEncoding

/// The JSON a local edit stores: the DTO's fields over the record as it was.
///
/// Another client (a newer Shelf, a web app) may have put fields on a record that this
/// Shelf does not know. An edit here changes only the fields the DTO owns and keeps
/// every other one, so pushing the edit does not erase them on the server.
///
/// `last_modified` is dropped: it is the server's, set on every write; the version an
/// edit is based on lives in the store's row and outbox entry, not in the JSON.
enum WireEncoding {
    /// - Parameters:
    ///   - dto: the new content, in the wire shape.
    ///   - existing: the stored JSON of the record being changed, nil for a new record.
    /// - Throws: `RepositoryError.unreadableRecord` when `existing` is not a JSON
    ///   object (so its other fields cannot be kept); `RecordEncodingError` when the
    ///   DTO cannot be encoded.
    static func encode<DTO: WritableRecordDTO>(_ dto: DTO, over existing: Data?) throws -> Data {
        let owned = try dto.encodedData()
        guard let existing else { return owned }
        var fields = try object(existing, id: dto.id, collection: DTO.collection, what: "its stored JSON")
        ServerOwnedFields.removeStamp(from: &fields)
        fields.merge(try object(owned, id: dto.id, collection: DTO.collection, what: "its new JSON")) { _, new in new }
        // NB: kept fields go through `JSONValue`, whose numbers are `Double`: an integer
        // beyond 2^53 in a field Shelf does not know would lose precision. No field of
        // Shelf's wire shapes or Kinto's own comes near it.
        return try WireJSON.data(fields)
    }

    private static func object(_ json: Data, id: String, collection: CollectionName, what: String) throws -> [String: JSONValue] {
        do {
            return try WireJSON.fields(json)
        } catch {
            throw RepositoryError.unreadableRecord(UnreadableRecord(collection: collection, id: id, reason: "\(what) is \(error)"))
        }
    }
}
