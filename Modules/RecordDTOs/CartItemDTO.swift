import Domain
import Records

// MARK: - CartItemDTO

/// `cart` record: `{id (= product id), product_id, quantity, last_modified}` — one
/// record per product, so the record id is the product id.
public struct CartItemDTO: WritableRecordDTO, Hashable {
    public static let collection = CollectionName.cart

    public var id: String
    public var productID: String
    public var quantity: Int
    public var lastModified: Int?

    typealias CodingKeys = CartItemFields

    public init(productID: String, quantity: Int, lastModified: Int? = nil) {
        self.id = productID
        self.productID = productID
        self.quantity = quantity
        self.lastModified = lastModified
    }

    public init(_ item: CartItem) {
        self.init(productID: item.productID, quantity: item.quantity)
    }

    /// A line whose `product_id` disagrees with its id is refused: the id *is* the product.
    public func toDomain() throws(DomainError) -> CartItem {
        guard productID == id else { throw .invalidIdentifier(productID) }
        return try CartItem(productID: productID, quantity: quantity)
    }
}
