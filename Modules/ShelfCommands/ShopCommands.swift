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
            Example("Products whose name mentions a bookmark", "shelf products bookmark"),
            Example("The five dearest products", "shelf products --sort -price --limit 5"),
        ])

    @Argument(name: "query", help: "Only products whose name contains the text.")
    var query: String?
    @Option(value: "text", help: "The same as QUERY.")
    var search: String?
    @OptionGroup
    var list = ListOptions<ProductSortField>(
        noun: "products", sortHelp: "Sort by name (the default), price or id; '-field' for descending.")

    func validate() throws(ParseError) {
        if query != nil, search != nil { throw .invalid("Give the text once: as QUERY or with --search") }
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let model = ProductViewModel(service: session.repositories.catalog)
        model.search(query ?? search ?? "")
        await model.load(order: list.order(), limit: list.limit)
        let shortIDs = await context.shortIDs([(.products, model.visibleProducts.map(\.id))])
        return try context.output.present(ProductsScreen(model, shortIDs: shortIDs), loaded: model.state)
    }
}

// MARK: - shelf cart

/// `shelf cart [show]|add|edit|rm`: the verbs every record takes (`docs/cli.md`, "One
/// grammar"); `set` is the older name of `edit`, kept for a release. A product, or a
/// cart line, is named by its id, a unique prefix of it, or its name.
struct CartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "cart", abstract: "Show the cart, or add, change and remove its lines.",
        subcommands: [Show.self, Add.self, Edit.self, Remove.self], defaultSubcommand: Show.self)

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

    static let productHelp = "The product's id, a unique prefix of it, or its name."
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
                Example("A product by its name", "shelf cart add 'Brass bookmark'"),
            ])

        @Argument(help: CartCommand.productHelp, completion: .ids(.products))
        var productID: String
        @Option(value: "n", help: "How many to add (default 1).")
        var quantity = 1

        func run(_ context: CommandContext) async throws -> ExitCode {
            guard quantity >= 1 else { throw DomainError.invalidQuantity(quantity) }
            let productID = try await context.resolveIDIfKnown(productID, in: .products)
            _ = try CartItem(productID: productID, quantity: quantity)
            let model = try await loadedCart(context)
            guard await model.add(productID: productID, quantity: quantity) else {
                throw refusal(model, missing: model.state.value?.product(id: productID) == nil)
            }
            let total = model.state.value?.line(productID: productID)?.quantity ?? quantity
            try context.output.confirm(ChangeScreen.addedToCart(try CartItem(productID: productID, quantity: total), added: quantity))
            return .success
        }
    }

    /// Sets a catalog product's quantity in the cart, whatever was there; 0 takes the
    /// line out, as `rm` does.
    struct Edit: ShelfCommand {
        static let configuration = CommandConfiguration(
            name: "edit", abstract: "Set how many of a product the cart holds (0 takes it out).",
            examples: [
                Example("Exactly three of a product", "shelf cart edit p-1 --quantity 3"),
                Example("None: the line goes", "shelf cart edit 'Brass bookmark' --quantity 0"),
            ],
            aliases: ["set"])

        @Argument(help: CartCommand.productHelp, completion: .ids(.products))
        var productID: String
        @Option(value: "n", help: "How many (0 takes the line out).")
        var quantity: Int

        func run(_ context: CommandContext) async throws -> ExitCode {
            guard quantity >= 0 else { throw DomainError.invalidQuantity(quantity) }
            guard quantity > 0 else { return try await Remove.takeOut(productID, context) }
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
            name: "rm", abstract: "Take a product out of the cart.",
            examples: [Example("Take a product out", "shelf cart rm p-1"), Example("By its name", "shelf cart rm 'Brass bookmark'")])

        @Argument(help: "The cart line's product: its id, a unique prefix of it, or its name.", completion: .ids(.cart))
        var productID: String

        func run(_ context: CommandContext) async throws -> ExitCode {
            try await Self.takeOut(productID, context)
        }

        /// Takes the line `reference` names out of the cart.
        @MainActor static func takeOut(_ reference: String, _ context: CommandContext) async throws -> ExitCode {
            let productID = try await context.resolveIDIfKnown(reference, in: .cart)
            let model = try await loadedCart(context)
            guard await model.remove(productID: productID) else {
                throw refusal(model, missing: model.state.value?.line(productID: productID) == nil)
            }
            try context.output.confirm(ChangeScreen.takenOutOfCart(productID: productID))
            return .success
        }
    }
}
