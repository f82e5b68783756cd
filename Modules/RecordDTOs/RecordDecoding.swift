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
    /// - Throws: `RecordDecodingError` naming the record and field — a missing or
    ///   mistyped field, or a value a Domain rule refuses (an empty title…).
    public static func decode<DTO: RecordDTO>(
        _ type: DTO.Type, from record: RawRecord, position: Int? = nil
    ) throws(RecordDecodingError) -> Versioned<DTO.Value> {
        let location = (position.map { "data[\($0)]" } ?? "data") + " (id \(record.id))"
        let dto: DTO
        do {
            dto = try JSONDecoder().decode(DTO.self, from: record.json)
        } catch {
            throw RecordDecodingError(path: DecodingErrorText.path(of: error, after: location), message: DecodingErrorText.message(for: error))
        }
        do {
            return Versioned(value: try dto.toDomain(), lastModified: Int(record.lastModified))
        } catch {
            throw RecordDecodingError(path: location, message: error.description, domainError: error)
        }
    }
}
