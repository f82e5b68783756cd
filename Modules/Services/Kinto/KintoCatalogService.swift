import Domain
import Foundation

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
