import Domain
import Records

// MARK: - ProductDTO

/// `products` record in the shared catalog: `{id, name, price_minor, currency, last_modified}`.
/// Read-only: Shelf never writes the catalog.
public struct ProductDTO: RecordDTO, Hashable {
    public static let collection = CollectionName.products

    public var id: String
    public var name: String
    public var priceMinor: Int
    public var currency: String
    public var lastModified: Int?

    typealias CodingKeys = ProductFields

    public init(id: String, name: String, priceMinor: Int, currency: String, lastModified: Int? = nil) {
        self.id = id
        self.name = name
        self.priceMinor = priceMinor
        self.currency = currency
        self.lastModified = lastModified
    }

    public func toDomain() throws(DomainError) -> Product {
        try Product(id: id, name: name, price: Money(minorUnits: priceMinor, currency: currency))
    }
}
