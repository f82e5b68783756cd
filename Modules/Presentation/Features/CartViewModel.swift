import Domain
import Observation

// MARK: - CartViewModel

/// The reader's cart, priced with the shop catalog: lines, quantities and a total per
/// currency in minor units.
@MainActor
@Observable
public final class CartViewModel {
    // MARK: State

    public var state: LoadingState<CartContents> { content.state }
    /// The last failure of a load or an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }

    /// The priced lines, empty until loaded.
    public var lines: [CartLine] { state.value?.lines ?? [] }
    /// One total per currency, ordered by currency code.
    public var totals: [Money] { state.value?.totals ?? [] }

    public var isLoading: Bool { state.isLoading }

    // MARK: Dependencies

    private let cart: any CartService
    private let catalog: any CatalogService
    private let content = ContentController<CartContents>()

    public init(cart: any CartService, catalog: any CatalogService) {
        self.cart = cart
        self.catalog = catalog
    }

    // MARK: Loading

    /// Loads the cart and the catalog together; a call while a load is in flight joins
    /// it. A failed load keeps the cart on screen.
    public func load() async {
        let cart = self.cart, catalog = self.catalog
        await content.load(.joinInFlight, action: "load the cart") {
            async let items = cart.cartItems()
            async let products = catalog.products(forceRefresh: false)
            return CartContents(
                items: try await items.requireUniqueIDs(),
                catalog: try await products.requireUniqueIDs()
            )
        }
    }

    /// Cancels in-flight work; nothing it would have loaded or changed is published.
    public func cancel() {
        content.cancel()
    }

    // MARK: Intents

    /// Puts `quantity` more of a catalog product into the cart.
    @discardableResult
    public func add(productID: Product.ID, quantity: Int = 1) async -> Bool {
        let action = "add to the cart"
        let existing = state.value?.line(productID: productID)?.quantity ?? 0
        let (total, overflow) = existing.addingReportingOverflow(quantity)
        guard quantity >= 1, !overflow else {
            content.refuse(action, DomainError.invalidQuantity(quantity))
            return false
        }
        return await set(total, of: productID, action: action)
    }

    /// Sets the quantity of a catalog product in the cart (at least 1; removing is `remove`).
    @discardableResult
    public func setQuantity(_ quantity: Int, of productID: Product.ID) async -> Bool {
        await set(quantity, of: productID, action: "change the quantity")
    }

    /// Removes a product's line from the cart.
    @discardableResult
    public func remove(productID: Product.ID) async -> Bool {
        let action = "remove from the cart"
        guard let contents = state.value else {
            content.refuse(action, FeatureError.notLoaded("cart"))
            return false
        }
        guard contents.line(productID: productID) != nil else {
            content.refuse(action, FeatureError.notFound(kind: "cart line", id: productID))
            return false
        }
        let cart = self.cart
        guard await content.attempt(action, { try await cart.removeFromCart(productID: productID) })
        else { return false }
        content.update { $0.removing(productID) }
        return true
    }

    // MARK: Plumbing

    /// Validates the line with the Domain's `CartItem` rule, checks the catalog, saves.
    private func set(_ quantity: Int, of productID: Product.ID, action: String) async -> Bool {
        guard let contents = state.value else {
            content.refuse(action, FeatureError.notLoaded("cart"))
            return false
        }
        do {
            _ = try CartItem(productID: productID, quantity: quantity)
        } catch {
            content.refuse(action, error)
            return false
        }
        guard contents.product(id: productID) != nil else {
            content.refuse(action, FeatureError.notInCatalog(productID: productID))
            return false
        }
        let cart = self.cart
        guard let item = await content.attempt(action, { try await cart.setQuantity(quantity, of: productID) })
        else { return false }
        content.update { $0.setting(item) }
        return true
    }
}
