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

// MARK: - KintoCatalogService

/// The shared shop catalog (`shop/products`), read-only: it has no write methods, and
/// the server refuses readers' writes anyway (403).
public struct KintoCatalogService: Sendable {
    private let records: KintoCollectionService

    public init(client: APIClient) {
        self.records = KintoCollectionService(client: client, collection: .products)
    }

    /// Every product, following `Next-Page`, decoded (off the caller's actor).
    @concurrent
    public func products(_ query: ListQuery = ListQuery()) async throws -> [Versioned<Product>] {
        guard let page = try await records.allRecords(query).page else { return [] }
        return try RecordDecoding.decode(ProductDTO.self, records: page.records)
    }

    public func product(id: String) async throws -> Versioned<Product> {
        try RecordDecoding.decode(ProductDTO.self, from: try await records.record(id: id))
    }

    // MARK: Page at a time, for the sync engine's pull

    /// The first page of raw catalog records; see `KintoCollectionService.firstPage`.
    public func firstPage(_ query: ListQuery = ListQuery(), onNextPage: (@Sendable (String) -> Void)? = nil) async throws -> PageResult {
        try await records.firstPage(query, onNextPage: onNextPage)
    }

    /// A following page of raw catalog records; see `KintoCollectionService.page(at:)`.
    public func page(at nextPage: String, onNextPage: (@Sendable (String) -> Void)? = nil) async throws -> RecordPage {
        try await records.page(at: nextPage, onNextPage: onNextPage)
    }
}
