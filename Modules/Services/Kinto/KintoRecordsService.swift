import Domain
import Foundation

// MARK: - KintoRecordsService

/// One of the reader's collections (books, notes, tasks, cart) as Domain values:
/// `KintoRecordsService<BookDTO>` lists, reads and writes `Book`s.
///
/// Every value comes back `Versioned` with its `last_modified`, which updates and
/// deletes send as `If-Match`, so a change made elsewhere in the meantime surfaces as
/// `APIError.preconditionFailed` instead of being overwritten.
public struct KintoRecordsService<DTO: WritableRecordDTO>: Sendable {
    public let records: KintoCollectionService

    public init(client: APIClient) {
        self.records = KintoCollectionService(client: client, collection: DTO.collection)
    }

    /// For a collection at another path (another bucket, a test's collection).
    public init(client: APIClient, path: KintoCollectionPath) {
        self.records = KintoCollectionService(client: client, path: path)
    }

    /// Every record, following `Next-Page`, decoded (off the caller's actor).
    @concurrent
    public func list(_ query: ListQuery = ListQuery()) async throws -> [Versioned<DTO.Value>] {
        guard let page = try await records.allRecords(query).page else { return [] }
        return try RecordDecoding.decode(DTO.self, records: page.records)
    }

    public func value(id: String) async throws -> Versioned<DTO.Value> {
        try RecordDecoding.decode(DTO.self, from: try await records.record(id: id))
    }

    /// Creates the value's record; fails with `.preconditionFailed` if its id exists.
    public func create(_ value: DTO.Value) async throws -> Versioned<DTO.Value> {
        let written = try await records.create(id: value.id, data: try DTO(value).encodedData())
        return try RecordDecoding.decode(DTO.self, from: written)
    }

    /// Replaces the value's record.
    /// - Parameter lastModified: the version the change is based on (`If-Match`); nil
    ///   overwrites whatever is there.
    public func update(_ value: DTO.Value, ifMatch lastModified: Int?) async throws -> Versioned<DTO.Value> {
        let written = try await records.update(id: value.id, data: try DTO(value).encodedData(), ifMatch: lastModified)
        return try RecordDecoding.decode(DTO.self, from: written)
    }

    /// Deletes the record.
    /// - Returns: the deletion's timestamp.
    @discardableResult
    public func delete(id: String, ifMatch lastModified: Int?) async throws -> Int {
        try await records.delete(id: id, ifMatch: lastModified).lastModified
    }
}
