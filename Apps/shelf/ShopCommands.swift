import ArgumentParsing
import Domain
import Presentation

// MARK: - ShopCommands

/// `shelf products` and `shelf cart [show]|add|rm`.
@MainActor
enum ShopCommands {
    static func products(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = ProductViewModel(service: session.repositories.catalog)
        model.search(context.invocation.option("search") ?? "")
        await model.load()
        return try context.output.present(ProductsScreen(model), loaded: model.state)
    }

    static func cart(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = CartViewModel(cart: session.repositories.cart, catalog: session.repositories.catalog)
        await model.load()
        return try context.output.present(CartScreen(model), loaded: model.state)
    }

    /// Sets a catalog product's quantity in the cart (1 by default). The cart model
    /// refuses a product the catalog does not have.
    static func addToCart(_ context: CommandContext) async throws -> ExitCode {
        let productID = try context.argument("product-id")
        let quantity = try context.integerOption("quantity") ?? 1
        let item = try CartItem(productID: productID, quantity: quantity)
        let model = try await loadedCart(context)
        guard await model.setQuantity(quantity, of: item.productID) else {
            throw refusal(model, missing: model.state.value?.product(id: productID) == nil)
        }
        try context.output.confirm(ChangeScreen.putInCart(item))
        return .success
    }

    static func removeFromCart(_ context: CommandContext) async throws -> ExitCode {
        let productID = try context.argument("product-id")
        let model = try await loadedCart(context)
        guard await model.remove(productID: productID) else {
            throw refusal(model, missing: model.state.value?.line(productID: productID) == nil)
        }
        try context.output.confirm(ChangeScreen.takenOutOfCart(productID: productID))
        return .success
    }

    // MARK: Helpers

    private static func loadedCart(_ context: CommandContext) async throws -> CartViewModel {
        let session = try context.session()
        let model = CartViewModel(cart: session.repositories.cart, catalog: session.repositories.catalog)
        await model.load()
        if !model.state.hasValue, let message = model.errorMessage { throw CommandFailure(.ioError, message) }
        return model
    }

    /// Why the cart model refused: the product is unknown to the catalog or the cart
    /// (`missing`, exit 1), or the store failed (74).
    private static func refusal(_ model: CartViewModel, missing: Bool) -> CommandFailure {
        CommandFailure(missing ? .failure : .ioError, model.errorMessage ?? "the cart was not changed")
    }
}
