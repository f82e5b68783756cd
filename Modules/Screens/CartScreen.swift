import Domain
import Presentation

// MARK: - CartScreen

/// The cart as `shelf cart` shows it: priced lines, a total per currency, and the
/// lines that could not be priced.
public struct CartScreen: RenderableScreen, Hashable {
    public struct Line: Encodable, Hashable, Sendable {
        public let productID: String
        /// The product's name; nil when the catalog does not have it.
        public let name: String?
        public let quantity: Int
        public let price: MoneyView?
        public let lineTotal: MoneyView?

        init(_ line: CartLine) {
            productID = line.productID
            name = line.product?.name
            quantity = line.quantity
            price = line.product.map { MoneyView($0.price) }
            lineTotal = line.lineTotal.map(MoneyView.init)
        }

        private enum CodingKeys: String, CodingKey { case productID, name, quantity, price, lineTotal }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(productID, forKey: .productID)
            try container.encode(name, forKey: .name)
            try container.encode(quantity, forKey: .quantity)
            try container.encode(price, forKey: .price)
            try container.encode(lineTotal, forKey: .lineTotal)
        }
    }

    public let state: ScreenStatus
    public let lines: [Line]
    /// One per currency, ordered by currency code.
    public let totals: [MoneyView]
    public let itemCount: Int
    public let error: String?
    private let hasValue: Bool

    @MainActor
    public init(_ model: CartViewModel) {
        state = ScreenStatus(model.state)
        lines = model.lines.map(Line.init)
        totals = model.totals.map(MoneyView.init)
        itemCount = model.state.value?.itemCount ?? 0
        error = model.errorMessage ?? model.state.failureMessage
        hasValue = model.state.hasValue
    }

    // MARK: Text

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        text.list(
            status: state, hasValue: hasValue, noun: "cart",
            table: lines.isEmpty ? nil : table, empty: "The cart is empty.", summary: nil, error: nil
        )
        if hasValue, !lines.isEmpty {
            let amounts = totals.isEmpty ? "nothing priced" : totals.map(\.formatted).joined(separator: " + ")
            text.line("Total: \(amounts) (\(Wording.count(itemCount, "item")))", .header)
            let unpriced = lines.filter { $0.lineTotal == nil }.map(\.productID)
            if !unpriced.isEmpty {
                text.line("Not priced (not in the catalog): \(unpriced.joined(separator: ", "))", .warning)
            }
        }
        text.error(error)
        return text.text
    }

    private var table: TextTable {
        var table = TextTable([.init("PRODUCT"), .init("NAME"), .init("QTY", .right),
                               .init("PRICE", .right), .init("TOTAL", .right)])
        for line in lines {
            table.append([
                .init(line.productID),
                line.name.map { .init($0) } ?? .init("(not in the catalog)", .warning),
                .init(String(line.quantity)),
                .init(line.price?.formatted ?? "-"),
                .init(line.lineTotal?.formatted ?? "-"),
            ])
        }
        return table
    }

    // MARK: JSON

    private enum CodingKeys: String, CodingKey { case state, lines, totals, itemCount, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(lines, forKey: .lines)
        try container.encode(totals, forKey: .totals)
        try container.encode(itemCount, forKey: .itemCount)
        try container.encode(error, forKey: .error)
    }
}
