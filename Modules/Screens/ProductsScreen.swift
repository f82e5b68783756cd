import Domain
import Foundation
import Presentation

// MARK: - ProductsScreen

/// The shop catalog as `shelf products` shows it.
public struct ProductsScreen: RenderableScreen, Hashable {
    public let state: ScreenStatus
    public let products: [ProductView]
    /// How many products the catalog holds; nil when a `--limit` list did not count them.
    public let totalCount: Int?
    public let query: String
    public let error: String?
    private let hasValue: Bool
    /// More products match than the list shows (`--limit` cut it).
    private let hasMore: Bool
    /// The id prefixes the table shows (JSON keeps full ids).
    private let shortIDs: ShortIDs

    @MainActor
    public init(_ model: ProductViewModel, shortIDs: ShortIDs = .full) {
        self.shortIDs = shortIDs
        state = ScreenStatus(model.state)
        products = model.visibleProducts.map(ProductView.init)
        totalCount = model.totalCount
        query = model.query
        error = model.errorMessage ?? model.state.failureMessage
        hasValue = model.state.hasValue
        hasMore = model.hasMore
    }

    // MARK: Text

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        text.list(
            status: state, hasValue: hasValue, noun: "products",
            table: products.isEmpty ? nil : table, empty: emptyLine, summary: summary, error: error
        )
        return text.text
    }

    private var table: TextTable {
        var table = TextTable([.init("ID"), .init("NAME"), .init("PRICE", .right)])
        for product in products {
            table.append(shortIDs.shown(product.id, in: .products), product.name, product.price.formatted)
        }
        return table
    }

    private var isFiltered: Bool { !query.trimmingCharacters(in: .whitespaces).isEmpty }

    private var summary: String {
        guard let totalCount else {
            // A limited list that did not count: what it shows, and that more match.
            let notes = (isFiltered ? ["matching \"\(query)\""] : []) + (hasMore ? ["more match than --limit \(products.count) shows"] : [])
            return Wording.count(products.count, "product") + " shown" + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))")
        }
        guard isFiltered else { return Wording.count(totalCount, "product") }
        return "\(products.count) of \(Wording.count(totalCount, "product")) shown (matching \"\(query)\")"
    }

    private var emptyLine: String {
        totalCount == 0 || !isFiltered ? "The catalog is empty." : "No products match \"\(query)\"."
    }

    // MARK: JSON

    private enum CodingKeys: String, CodingKey { case state, products, totalCount, query, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(products, forKey: .products)
        try container.encode(totalCount, forKey: .totalCount)
        try container.encode(query, forKey: .query)
        try container.encode(error, forKey: .error)
    }
}
