import Domain

// MARK: - CartLine

/// One line of the cart, priced from the catalog.
public struct CartLine: Identifiable, Hashable, Sendable {
    public var id: Product.ID { item.productID }

    public let item: CartItem
    /// The catalog's product; nil when the catalog no longer has it.
    public let product: Product?
    /// Price × quantity; nil when the product is unknown or the amount does not fit in `Int`.
    public let lineTotal: Money?

    public var productID: Product.ID { item.productID }
    public var quantity: Int { item.quantity }

    init(item: CartItem, product: Product?) {
        self.item = item
        self.product = product
        if let price = product?.price {
            let (amount, overflow) = price.minorUnits.multipliedReportingOverflow(by: item.quantity)
            lineTotal = overflow ? nil : try? Money(minorUnits: amount, currency: price.currency)
        } else {
            lineTotal = nil
        }
    }
}

// MARK: - CartContents

/// The cart's lines priced against the catalog, with a total per currency.
///
/// Amounts stay in minor units, so totals are exact; currencies are never mixed, so a
/// cart holding EUR and USD lines has two totals.
public struct CartContents: Hashable, Sendable {
    /// The lines in the order the cart service returned them.
    public let lines: [CartLine]
    /// The catalog the lines were priced with.
    public let catalog: [Product]
    /// One total per currency, ordered by currency code.
    public let totals: [Money]

    /// Lines that could not be priced (not in the catalog) and are left out of `totals`.
    public var unpricedLines: [CartLine] { lines.filter { $0.lineTotal == nil } }

    /// The number of items (the sum of the quantities).
    public var itemCount: Int { lines.reduce(0) { $0 + $1.quantity } }

    public var isEmpty: Bool { lines.isEmpty }

    public init(items: [CartItem], catalog: [Product]) {
        let byID = Dictionary(catalog.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        lines = items.map { CartLine(item: $0, product: byID[$0.productID]) }
        self.catalog = catalog
        totals = Self.totals(of: lines)
    }

    public func product(id: Product.ID) -> Product? {
        catalog.first { $0.id == id }
    }

    public func line(productID: Product.ID) -> CartLine? {
        lines.first { $0.productID == productID }
    }

    // MARK: Changes

    /// The contents with `item` replacing the line for its product, or added at the end.
    func setting(_ item: CartItem) -> CartContents {
        var items = lines.map(\.item)
        if let index = items.firstIndex(where: { $0.productID == item.productID }) {
            items[index] = item
        } else {
            items.append(item)
        }
        return CartContents(items: items, catalog: catalog)
    }

    /// The contents without the line for `productID`.
    func removing(_ productID: Product.ID) -> CartContents {
        CartContents(items: lines.map(\.item).filter { $0.productID != productID }, catalog: catalog)
    }

    // MARK: Totals

    private static func totals(of lines: [CartLine]) -> [Money] {
        var sums: [String: Int] = [:]
        var overflowed: Set<String> = []
        for line in lines {
            guard let total = line.lineTotal else { continue }
            let (sum, overflow) = (sums[total.currency] ?? 0).addingReportingOverflow(total.minorUnits)
            if overflow { overflowed.insert(total.currency) } else { sums[total.currency] = sum }
        }
        // NB: a currency whose sum overflows `Int` gets no total rather than a wrong one.
        return sums.keys.sorted().filter { !overflowed.contains($0) }.compactMap { currency in
            try? Money(minorUnits: sums[currency] ?? 0, currency: currency)
        }
    }
}
