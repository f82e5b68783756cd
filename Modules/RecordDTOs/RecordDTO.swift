import Domain
import Foundation
import Records

// MARK: - RecordDTO

/// The wire shape of one of Shelf's Kinto records, and its mapping to a Domain value:
/// the one place per type where `author_name` becomes `author` and back.
public protocol RecordDTO: Codable, Sendable {
    associatedtype Value: Sendable
    /// The collection records of this shape live in.
    static var collection: CollectionName { get }
    var id: String { get }
    /// The server's timestamp; nil in a DTO about to be written.
    var lastModified: Int? { get }
    /// The Domain value, checked by the Domain's rules.
    func toDomain() throws(DomainError) -> Value
    /// The record read by `JSONByteScanner` rather than `JSONDecoder`, which costs
    /// several times as much on Linux — for lists of thousands of stored records. Nil
    /// when this shape has no such reader, or when the bytes hold anything the scanner
    /// cannot vouch `JSONDecoder` reads the same way (see `ScannedMembers`): the caller
    /// then decodes with `JSONDecoder`, whose errors name the field.
    static func scanned(from json: Data) -> Self?
}

extension RecordDTO {
    /// No scanner: every record goes through `JSONDecoder`.
    public static func scanned(from json: Data) -> Self? { nil }
}

/// A record shape Shelf also writes (everything but the read-only catalog).
public protocol WritableRecordDTO: RecordDTO where Value: Identifiable, Value.ID == String {
    /// The wire shape of a Domain value, without `last_modified` (the server sets it).
    init(_ value: Value)
}

extension WritableRecordDTO {
    /// The record's JSON object, ready to be a write's `data`.
    public func encodedData() throws(RecordEncodingError) -> Data {
        do {
            return try WireJSON.encoder().encode(self)
        } catch {
            throw RecordEncodingError(collection: Self.collection, id: id, reason: "\(error)")
        }
    }
}

// MARK: - Versioned

/// A Domain value with the server timestamp of the version it was read at — what an
/// `If-Match` needs to update it safely.
public struct Versioned<Value> {
    public var value: Value
    /// The record's `last_modified`, in milliseconds since 1970.
    public var lastModified: Int

    public init(value: Value, lastModified: Int) {
        self.value = value
        self.lastModified = lastModified
    }
}

extension Versioned: Sendable where Value: Sendable {}
extension Versioned: Equatable where Value: Equatable {}
extension Versioned: Hashable where Value: Hashable {}
