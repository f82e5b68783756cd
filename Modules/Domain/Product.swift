// MARK: - Product

/// An item of the shared shop catalog (read-only for readers).
public struct Product: Identifiable, Hashable, Sendable, Codable {
    public typealias ID = String

    public let id: ID
    public let name: String
    public let price: Money

    public init(id: ID, name: String, price: Money) throws(DomainError) {
        self.id = try RecordID.validate(id)
        self.name = try TitleRule.validate(name, field: "name")
        self.price = price
    }
}
