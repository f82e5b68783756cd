import Domain
import Storage

// MARK: - CartRepository

/// The reader's cart, offline first (see `BookRepository`). One record per product:
/// the record id is the product id, so setting a quantity twice changes one line.
public actor CartRepository: CartService, RefreshControlling {
    private let cache: CachedCollection<CartItemMapping>
    /// Wait for, cancel or forget what this repository refreshes behind its reads.
    public nonisolated let refreshControl: RefreshControl

    public init(store: ShelfStore, refresher: any CollectionRefreshing, configuration: RepositoryConfiguration = RepositoryConfiguration()) {
        cache = CachedCollection(store: store, refresher: refresher, configuration: configuration)
        refreshControl = RefreshControl(cache)
    }

    // MARK: Reading

    /// Every cart line, in product id order, with how current it is and any refresh error.
    public func load(forceRefresh: Bool = false) async throws -> CachedResult<[CartItem]> {
        try await cache.all(forceRefresh: forceRefresh)
    }

    /// The line of this product in the local store, without asking the server.
    public func item(productID: Product.ID) async throws -> CartItem? {
        try await cache.value(id: productID)
    }

    // MARK: CartService

    /// The cart lines; a failed refresh is reported only when there is nothing cached.
    public func cartItems() async throws -> [CartItem] {
        try await cache.all(forceRefresh: false).valueOrRefreshError()
    }

    /// Adds the product with `quantity`, or sets the quantity of its line.
    ///
    /// The catalog is not consulted: a line may name a product the catalog no longer
    /// has (the cart view shows it as such).
    /// - Throws: `DomainError.invalidQuantity` below 1, `.invalidIdentifier` (nothing is written).
    public func setQuantity(_ quantity: Int, of productID: Product.ID) async throws -> CartItem {
        let item = try CartItem(productID: productID, quantity: quantity)
        try await cache.save(item, as: .upsert)
        return item
    }

    /// Removes the product's line. Removing a product that is not in the cart does
    /// nothing: the cart ends up as the reader asked.
    /// - Throws: `DomainError.invalidIdentifier`.
    public func removeFromCart(productID: Product.ID) async throws {
        try await cache.delete(id: RecordID.validate(productID), mustExist: false)
    }

}
