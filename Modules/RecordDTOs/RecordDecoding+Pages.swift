import Domain
import Records

// MARK: - Decoding pages

extension RecordDecoding {
    /// Decodes the live records among `records` (a list page's, in order); tombstones
    /// are left out, and a page that lists an id twice is refused.
    ///
    /// The page itself was read, and its own failures (malformed JSON with the byte offset,
    /// no `data` array) reported, by whoever read it: Services' `RecordPageScanner` (as an
    /// `APIError`) or Records' `RecordListScanner` (as a `JSONScanError`).
    /// - Throws: `RecordDecodingError` naming the record and field that did not read, or,
    ///   at the path `data`, the ids the page repeats (`DomainError.duplicateIdentities`).
    public static func decode<DTO: RecordDTO>(_ type: DTO.Type, records: [RawRecord]) throws(RecordDecodingError) -> [Versioned<DTO.Value>] {
        try requireUniqueIDs(records)
        var values: [Versioned<DTO.Value>] = []
        values.reserveCapacity(records.count)
        for (position, record) in records.enumerated() where !record.isDeleted {
            values.append(try decode(type, from: record, position: position))
        }
        return values
    }

    /// A page that lists one id twice: which version would be the value?
    private static func requireUniqueIDs(_ records: [RawRecord]) throws(RecordDecodingError) {
        do {
            _ = try records.requireUniqueIDs()
        } catch {
            throw RecordDecodingError(path: "data", message: "the page lists the same record more than once (\(error))", domainError: error)
        }
    }
}
