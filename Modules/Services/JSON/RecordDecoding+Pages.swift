import Foundation
import Records
import Vocabulary

// MARK: - Decoding response pages

extension RecordDecoding {
    /// Decodes a list page body (`{"data": [...]}`): every live record, in order;
    /// tombstones are left out.
    /// - Throws: `APIError.decoding` for malformed JSON (with the byte offset), a page
    ///   that lists an id twice, or any record that does not decode.
    public static func decodePage<DTO: RecordDTO>(_ type: DTO.Type, from body: Data) throws(APIError) -> [Versioned<DTO.Value>] {
        try decode(type, records: try RecordPageScanner.scan(body))
    }

    /// Decodes the live records among `records`, refusing repeated ids.
    /// - Throws: `APIError.decoding` naming the record and field that did not read.
    public static func decode<DTO: RecordDTO>(_ type: DTO.Type, records: [RawRecord]) throws(APIError) -> [Versioned<DTO.Value>] {
        try RecordPageScanner.requireUniqueIDs(records)
        var values: [Versioned<DTO.Value>] = []
        values.reserveCapacity(records.count)
        for (position, record) in records.enumerated() where !record.isDeleted {
            do {
                values.append(try decode(type, from: record, position: position))
            } catch {
                throw .decoding(DecodingFailure(error))
            }
        }
        return values
    }
}
