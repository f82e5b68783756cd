import Domain
import Storage

// MARK: - CartRepository

/// The reader's cart (see `CollectionRepository`). One record per product: the record
/// id is the product id, so setting a quantity twice changes one line.
public typealias CartRepository = CollectionRepository<CartItemMapping>

extension CollectionRepository where Mapping == CartItemMapping {
    /// The line of this product in the local store, without asking the server.
    public func item(productID: Product.ID) async throws -> CartItem? {
        try await value(id: productID)
    }
}

// MARK: - CartService

extension CollectionRepository: CartService where Mapping == CartItemMapping {
    /// The cart lines; a failed refresh is reported only when there is nothing cached.
    public func cartItems() async throws -> [CartItem] {
        try await values(forceRefresh: false)
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
