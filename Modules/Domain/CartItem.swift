// MARK: - CartItem

/// A product in the reader's cart. Its identity is the product: one line per product.
public struct CartItem: Identifiable, Hashable, Sendable, Codable {
    public var id: Product.ID { productID }

    public let productID: Product.ID
    public private(set) var quantity: Int

    public init(productID: Product.ID, quantity: Int = 1) throws(DomainError) {
        self.productID = try RecordID.validate(productID)
        guard quantity >= 1 else { throw .invalidQuantity(quantity) }
        self.quantity = quantity
    }

    public mutating func setQuantity(_ quantity: Int) throws(DomainError) {
        guard quantity >= 1 else { throw .invalidQuantity(quantity) }
        self.quantity = quantity
    }
}
