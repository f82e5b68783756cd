import ArgumentParsing
import Domain
import Presentation
import Screens

// MARK: - shelf products

struct ProductsCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "products", abstract: "List the shop catalog.",
        discussion: """
        --sort takes a field (name, price, id); a leading '-' or --reverse sorts descending.
        The store filters, sorts and stops at --limit without counting the rest
        ('totalCount' is then null).
        """,
        examples: [
            Example("Products whose name mentions a bookmark", "shelf products --search bookmark"),
            Example("The five dearest products", "shelf products --sort -price --limit 5"),
        ])

    @Option(value: "text", help: "Only products whose name contains the text.")
    var search: String?
    @OptionGroup
    var list = ListOptions<ProductSortField>(
        noun: "products", sortHelp: "Sort by name (the default), price or id; '-field' for descending.")

    func run(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = ProductViewModel(service: session.repositories.catalog)
        model.search(search ?? "")
        await model.load(order: list.order(), limit: list.limit)
        let shortIDs = await context.shortIDs([(.products, model.visibleProducts.map(\.id))])
        return try context.output.present(ProductsScreen(model, shortIDs: shortIDs), loaded: model.state)
    }
}

// MARK: - shelf cart

/// `shelf cart [show]|add|set|rm`.
struct CartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "cart", abstract: "Show the cart, or add and remove products.",
        subcommands: [Show.self, Add.self, SetQuantity.self, Remove.self], defaultSubcommand: Show.self)

    @MainActor static func loadedCart(_ context: CommandContext) async throws -> CartViewModel {
        let session = try context.session()
        let model = CartViewModel(cart: session.repositories.cart, catalog: session.repositories.catalog)
        await model.load()
        if !model.state.hasValue, let message = model.errorMessage { throw CommandFailure(.ioError, message) }
        return model
    }

    /// Why the cart model refused: the product is unknown to the catalog or the cart
    /// (`missing`, exit 1), or the store failed (74).
    @MainActor static func refusal(_ model: CartViewModel, missing: Bool) -> CommandFailure {
        CommandFailure(missing ? .failure : .ioError, model.errorMessage ?? "the cart was not changed")
    }
}

extension CartCommand {
    struct Show: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "show", abstract: "Show the cart (the default).", examples: [Example("The cart and its totals ('shelf cart' alone does the same)", "shelf cart show")])

        func run(_ context: CommandContext) async throws -> ExitCode {
            let session = try context.session()
            let model = CartViewModel(cart: session.repositories.cart, catalog: session.repositories.catalog)
            await model.load()
            return try context.output.present(CartScreen(model), loaded: model.state)
        }
    }

    /// Adds a quantity of a catalog product to the cart (1 by default): to the line it
    /// has, or a new line. The cart model refuses a product the catalog does not have.
    struct Add: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "add", abstract: "Put a product in the cart (adds to the quantity when it is there).",
            examples: [
                Example("Two of a product (four when two were there)", "shelf cart add p-1 --quantity 2"),
            ])

        @Argument(help: "The product's id, or a unique prefix of it.", completion: .ids(.products))
        var productID: String
        @Option(value: "n", help: "How many to add (default 1).")
        var quantity = 1

        func run(_ context: CommandContext) async throws -> ExitCode {
            _ = try CartItem(productID: productID, quantity: quantity)
            let productID = try await context.resolveIDIfKnown(productID, in: .products)
            let model = try await loadedCart(context)
            guard await model.add(productID: productID, quantity: quantity) else {
                throw refusal(model, missing: model.state.value?.product(id: productID) == nil)
            }
            let total = model.state.value?.line(productID: productID)?.quantity ?? quantity
            try context.output.confirm(ChangeScreen.addedToCart(try CartItem(productID: productID, quantity: total), added: quantity))
            return .success
        }
    }

    /// Sets a catalog product's quantity in the cart, whatever was there.
    struct SetQuantity: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "set", abstract: "Set how many of a product the cart holds.",
            examples: [Example("Exactly three of a product", "shelf cart set p-1 --quantity 3")])

        @Argument(help: "The product's id, or a unique prefix of it.", completion: .ids(.products))
        var productID: String
        @Option(value: "n", help: "How many (at least 1; 'shelf cart rm' takes it out).")
        var quantity: Int

        func run(_ context: CommandContext) async throws -> ExitCode {
            _ = try CartItem(productID: productID, quantity: quantity)
            let productID = try await context.resolveIDIfKnown(productID, in: .products)
            let item = try CartItem(productID: productID, quantity: quantity)
            let model = try await loadedCart(context)
            guard await model.setQuantity(quantity, of: item.productID) else {
                throw refusal(model, missing: model.state.value?.product(id: productID) == nil)
            }
            try context.output.confirm(ChangeScreen.putInCart(item))
            return .success
        }
    }

    struct Remove: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "rm", abstract: "Take a product out of the cart.", examples: [Example("Take a product out", "shelf cart rm p-1")])

        @Argument(help: "The product's id, or a unique prefix of it.", completion: .ids(.cart))
        var productID: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            let productID = try await context.resolveIDIfKnown(productID, in: .cart)
            let model = try await loadedCart(context)
            guard await model.remove(productID: productID) else {
                throw refusal(model, missing: model.state.value?.line(productID: productID) == nil)
            }
            try context.output.confirm(ChangeScreen.takenOutOfCart(productID: productID))
            return .success
        }
    }
}
