import Domain
import Presentation
import Terminal

// MARK: - ProductsPane

/// The shop's catalog from `ProductViewModel`: name and price, `a` (or Enter) puts the
/// selected product in the cart.
@MainActor
struct ProductsPane {
    let model: ProductViewModel?
    let selection: Int

    func draw(into frame: inout Frame, rows area: Range<Int>) {
        let products = model?.visibleProducts ?? []
        let priceWidth = products.map { DisplayWidthText.columns($0.price.formatted) }.max() ?? 0
        let nameWidth = max(8, frame.columns - 4 - priceWidth - 2)
        let empty = model.map { $0.isLoading ? "Reading the catalog…" : ($0.errorMessage ?? "The catalog is empty.") }
            ?? "This account has no shop."
        ListPane(
            title: "Products (\(products.count))", hint: "a puts one in the cart, c shows the cart",
            rows: products.map { FittedText.fit($0.name, nameWidth) + "  " + Self.rightAligned($0.price.formatted, priceWidth) },
            empty: empty, selection: selection
        ).draw(into: &frame, rows: area)
    }

    /// `text` padded on the left to `width` columns, so amounts line up on their right.
    static func rightAligned(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - DisplayWidthText.columns(text))) + text
    }
}

// MARK: - CartPane

/// The cart from `CartViewModel`: each line's quantity, product and total, then the totals
/// (one per currency); `+` / `-` change the selected line's quantity, `d` removes it.
@MainActor
struct CartPane {
    let model: CartViewModel?
    let selection: Int

    func draw(into frame: inout Frame, rows area: Range<Int>) {
        let lines = model?.lines ?? []
        let items = lines.reduce(0) { $0 + $1.quantity }
        let empty = model.map { $0.isLoading ? "Reading the cart…" : ($0.errorMessage ?? "The cart is empty ($ shows the products).") }
            ?? "This account has no cart."
        let totalWidth = lines.compactMap { $0.lineTotal.map { DisplayWidthText.columns($0.formatted) } }.max() ?? 0
        let nameWidth = max(8, frame.columns - 4 - 6 - max(totalWidth, 8) - 2)
        let rows = lines.map { line in
            FittedText.fit("\(line.quantity) ×", 6) + FittedText.fit(line.product?.name ?? "\(line.productID) (not in the catalog)", nameWidth)
                + "  " + ProductsPane.rightAligned(line.lineTotal?.formatted ?? "no price", max(totalWidth, 8))
        }
        // NB: the list keeps the last row of the area for the totals.
        let listArea = area.lowerBound..<max(area.lowerBound + 1, area.upperBound - (lines.isEmpty ? 0 : 2))
        ListPane(
            title: "Cart (\(items) item\(items == 1 ? "" : "s"))", hint: "+ / - quantity, d removes", rows: rows,
            empty: empty, selection: selection
        ).draw(into: &frame, rows: listArea)
        guard !lines.isEmpty, let last = area.last, last > listArea.upperBound - 1 else { return }
        let totals = (model?.totals ?? []).map(\.formatted).joined(separator: " + ")
        frame.write("Total: " + (totals.isEmpty ? "no price" : totals), row: last, column: 2, style: .bold)
    }
}
