import Domain
import Observation

// MARK: - ProductViewModel

/// The shop catalog, searchable by name.
@MainActor
@Observable
public final class ProductViewModel {
    // MARK: State

    public var state: LoadingState<[Product]> { content.state }
    /// The last failure of a load; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    /// The search text, matched case- and diacritic-insensitively against the name.
    public private(set) var query = ""

    /// All loaded products, in the service's order.
    public var products: [Product] { state.value ?? [] }

    /// The products matching `query`.
    public var visibleProducts: [Product] {
        products.filter { SearchFolding.matches(query, in: $0.name) }
    }

    public var isLoading: Bool { state.isLoading }

    /// Set by `load(order:limit:)`: the store filtered the products by `query` already,
    /// and cut them at this limit when there is one.
    public private(set) var filteredByStore = false
    /// The last store-filtered load's limit; nil when it asked for every match.
    public private(set) var limit: Int?
    /// More products match than the last store-filtered load holds (`limit` cut it).
    public private(set) var hasMore = false
    /// How many products the catalog holds: every loaded product after `load(force:)`,
    /// the store's count after an unlimited `load(order:limit:)`, nil after a limited one.
    public var totalCount: Int? { filteredByStore ? storeTotal : products.count }
    private var storeTotal: Int?
    /// Only the newest store-filtered load may set the facts above.
    private var sliceTicket = 0

    public func product(id: Product.ID) -> Product? {
        products.first { $0.id == id }
    }

    // MARK: Dependencies

    private let service: any CatalogService
    private let content = ContentController<[Product]>()

    public init(service: any CatalogService) {
        self.service = service
    }

    // MARK: Loading

    /// Loads the catalog; a call while a load is in flight joins it. A failed load
    /// keeps the products on screen.
    /// - Parameter force: ask the server even when the repository's copy is fresh.
    public func load(force: Bool = false) async {
        let service = self.service
        await content.load(.joinInFlight, action: "load the catalog") {
            try await service.products(forceRefresh: force).requireUniqueIDs()
        }
        filteredByStore = false
        hasMore = false
    }

    /// Loads the products matching `query`, the first `limit` (all when nil) in `order`:
    /// the service filters, sorts and cuts them in its store's query.
    public func load(order: ListOrder<ProductSortField>, limit: Int?) async {
        sliceTicket &+= 1
        let (ticket, service, query) = (sliceTicket, self.service, self.query)
        await content.load(.newestWins, action: "load the catalog") { [weak self] in
            let slice = try await service.products(matching: query, order: order, limit: limit)
            let products = try slice.items.requireUniqueIDs()
            if let self, ticket == self.sliceTicket {
                (self.filteredByStore, self.limit, self.hasMore, self.storeTotal) = (true, limit, slice.hasMore, slice.total)
            }
            return products
        }
    }

    /// Cancels in-flight work; nothing it would have loaded is published.
    public func cancel() {
        content.cancel()
    }

    // MARK: Filtering

    public func search(_ query: String) {
        self.query = query
    }
}
