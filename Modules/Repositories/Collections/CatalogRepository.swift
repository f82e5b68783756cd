import Domain
import Storage

// MARK: - CatalogRepository

/// The shared shop catalog, read-only (see `CollectionRepository`), under the catalog
/// freshness policy.
///
/// It has no write path: readers never change the catalog (its mapping's DTO is not a
/// `WritableRecordDTO`, so the edit methods of `CachedCollection` do not exist for it,
/// and the store refuses local edits of `products` as well).
///
/// Its refresh is the same `CollectionRefreshing` call as every other collection's; the
/// sync engine makes it a conditional GET (`If-None-Match` with the stored ETag), so an
/// unchanged catalog costs one 304 and leaves the in-memory copy as it is.
public typealias CatalogRepository = CollectionRepository<ProductMapping>

extension CollectionRepository where Mapping == ProductMapping {
    /// One page of the products whose name contains `search`, found with the store's indexes.
    public func products(
        matching search: String? = nil, limit: Int? = nil, offset: Int = 0, forceRefresh: Bool = false
    ) async throws -> CachedResult<QueryPage<Product>> {
        try await cache.page(search: search, complete: nil, limit: limit, offset: offset, forceRefresh: forceRefresh)
    }

    /// The product with this id in the local copy, without asking the server.
    public func product(id: Product.ID) async throws -> Product? {
        try await value(id: id)
    }
}

// MARK: - CatalogService

extension CollectionRepository: CatalogService where Mapping == ProductMapping {
    /// The products; a failed refresh is reported only when there is nothing cached.
    public func products(forceRefresh: Bool) async throws -> [Product] {
        try await values(forceRefresh: forceRefresh)
    }

    /// The products whose name contains `search`, sorted and cut at `limit` by the
    /// store's query; a failed refresh is reported only when there is nothing cached.
    public func products(matching search: String, order: ListOrder<ProductSortField>, limit: Int?) async throws
        -> ListSlice<Product>
    {
        try await cache.slice(search: search, order: RecordOrder(order), limit: limit, forceRefresh: false)
            .valueOrRefreshError()
    }
}
