import Domain
import Foundation
import Records

// MARK: - RecordDecoding

/// Raw records → Domain values through their DTO, with errors that say which record
/// and which field.
///
/// `JSONDecoder` per record is fine here: this is the path of screens and repositories,
/// not of the sync engine's bulk pulls (those store `RawRecord` bytes as they are).
public enum RecordDecoding {
    /// Decodes one record.
    /// - Parameter position: the record's index in its page, for the error's path.
    /// - Throws: `APIError.decoding` naming the record and field — a missing or
    ///   mistyped field, or a value a Domain rule refuses (an empty title…).
    public static func decode<DTO: RecordDTO>(
        _ type: DTO.Type, from record: RawRecord, position: Int? = nil
    ) throws(APIError) -> Versioned<DTO.Value> {
        let location = (position.map { "data[\($0)]" } ?? "data") + " (id \(record.id))"
        let dto: DTO
        do {
            dto = try JSONDecoder().decode(DTO.self, from: record.json)
        } catch {
            throw .decoding(DecodingFailure(decoding: error, pathPrefix: location))
        }
        do {
            return Versioned(value: try dto.toDomain(), lastModified: Int(record.lastModified))
        } catch {
            throw .decoding(DecodingFailure(path: location, message: error.description, domainError: error))
        }
    }

    /// Decodes a list page body (`{"data": [...]}`): every live record, in order;
    /// tombstones are left out.
    /// - Throws: `APIError.decoding` for malformed JSON (with the byte offset), a page
    ///   that lists an id twice, or any record that does not decode.
    public static func decodePage<DTO: RecordDTO>(_ type: DTO.Type, from body: Data) throws(APIError) -> [Versioned<DTO.Value>] {
        try decode(type, records: try RecordPageScanner.scan(body))
    }

    /// Decodes the live records among `records`, refusing repeated ids.
    public static func decode<DTO: RecordDTO>(_ type: DTO.Type, records: [RawRecord]) throws(APIError) -> [Versioned<DTO.Value>] {
        try RecordPageScanner.requireUniqueIDs(records)
        var values: [Versioned<DTO.Value>] = []
        values.reserveCapacity(records.count)
        for (position, record) in records.enumerated() where !record.isDeleted {
            values.append(try decode(type, from: record, position: position))
        }
        return values
    }
}
