import Domain
import Foundation
import RecordDTOs
import Records
import Storage

// MARK: - RecordMapping

/// One collection's stored records as Domain values: which DTO reads and writes them
/// (the one place the wire's field names meet the Domain's), and the order the store
/// lists them in.
///
/// Public only so that each repository can be named (`BookRepository` is
/// `CollectionRepository<BookMapping>`); what a mapping does stays inside the module.
public protocol RecordMapping: Sendable {
    associatedtype DTO: RecordDTO where DTO.Value: Identifiable, DTO.Value.ID == String

    /// The listing order of the store, computed from a value (see `CollectionMappings`).
    /// Compared byte by byte, then by id, as SQLite compares the stored key.
    static func sortKey(of value: DTO.Value) -> String
}

extension RecordMapping {
    typealias Value = DTO.Value

    static var collection: CollectionName { DTO.collection }

    // MARK: Reading

    /// The Domain value of a stored record, through its DTO and the Domain's rules.
    /// - Throws: `RepositoryError.unreadableRecord` naming the field and the rule.
    static func decode(_ record: StoredRecord) throws(RepositoryError) -> Value {
        if let value = scanned(record) { return value }
        // NB: a local creation has no server timestamp yet; `Versioned.lastModified` is
        // not used here, so 0 stands in for it.
        let raw = RawRecord(id: record.id, lastModified: record.lastModified ?? 0, json: record.json)
        do {
            return try RecordDecoding.decode(DTO.self, from: raw).value
        } catch {
            throw .unreadableRecord(UnreadableRecord(collection: collection, id: record.id, failure: error))
        }
    }

    /// Decodes records in order, setting aside those that do not read.
    ///
    /// A DTO with a scanner (`RecordDTO.scanned(from:)`) reads each record without
    /// `JSONDecoder`: 2,035 books in 1.6 ms instead of 6. Otherwise — or as soon as one
    /// record is left to the decoder — all records are decoded as one JSON array in a
    /// single `JSONDecoder` call: on Linux a decoder call has a fixed cost that, paid per
    /// record, is most of the time of a 100,000-record load. Only when some record fails
    /// does it go record by record, to tell which ones.
    static func decodeAll(_ records: [StoredRecord]) -> (values: [Value], unreadable: [UnreadableRecord]) {
        if let values = scannedAll(records) {
            return (values, [])
        }
        if records.count > 1, let values = try? decodeAsOneArray(records) {
            return (values, [])
        }
        return decodeOneByOne(records)
    }

    /// Every record read by the DTO's scanner and passed by the Domain's rules; nil at
    /// the first that is not (the decoder then reads them all, and says why).
    private static func scannedAll(_ records: [StoredRecord]) -> [Value]? {
        var values: [Value] = []
        values.reserveCapacity(records.count)
        for record in records {
            guard let value = scanned(record) else { return nil }
            values.append(value)
        }
        return values
    }

    /// One record through the DTO's scanner and the Domain's rules; nil when either
    /// leaves it to the decoder.
    private static func scanned(_ record: StoredRecord) -> Value? {
        guard let dto = DTO.scanned(from: record.json) else { return nil }
        return try? dto.toDomain()
    }

    /// The records' bytes joined into `[r1,r2,…]` and decoded at once.
    private static func decodeAsOneArray(_ records: [StoredRecord]) throws -> [Value] {
        var array = Data()
        array.reserveCapacity(records.reduce(2) { $0 + $1.json.count + 1 })
        array.append(UInt8(ascii: "["))
        for (index, record) in records.enumerated() {
            if index > 0 { array.append(UInt8(ascii: ",")) }
            array.append(record.json)
        }
        array.append(UInt8(ascii: "]"))
        return try JSONDecoder().decode([DTO].self, from: array).map { dto in try dto.toDomain() }
    }

    private static func decodeOneByOne(_ records: [StoredRecord]) -> (values: [Value], unreadable: [UnreadableRecord]) {
        var values: [Value] = []
        var unreadable: [UnreadableRecord] = []
        values.reserveCapacity(records.count)
        for record in records {
            do {
                values.append(try decode(record))
            } catch .unreadableRecord(let problem) {
                unreadable.append(problem)
            } catch {
                unreadable.append(UnreadableRecord(collection: collection, id: record.id, reason: error.description))
            }
        }
        return (values, unreadable)
    }

    // MARK: Ordering

    /// Whether `lhs` lists before `rhs`: by sort key as UTF-8 bytes (SQLite's BINARY
    /// collation), then by id.
    static func listsBefore(_ lhs: (key: String, id: String), _ rhs: (key: String, id: String)) -> Bool {
        if lhs.key != rhs.key { return lhs.key.utf8.lexicographicallyPrecedes(rhs.key.utf8) }
        return lhs.id.utf8.lexicographicallyPrecedes(rhs.id.utf8)
    }
}
