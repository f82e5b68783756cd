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
    }

    /// Cancels in-flight work; nothing it would have loaded is published.
    public func cancel() {
        content.cancel()
    }

    // MARK: Filtering

    public func search(_ query: String) {
        self.query = query
    }

    public func dismissError() {
        content.dismissError()
    }
}
