import Domain

// MARK: - Record views
//
// The JSON shape of each record, with the Domain's field names. They are separate
// from the Domain types' own `Codable` so the CLI's output stays the same when a
// Domain type changes how it stores itself. Optional fields are written as `null`,
// never left out, so every record of a kind has the same keys.

public struct BookView: Encodable, Hashable, Sendable {
    public let id: String
    public let title: String
    public let author: String
    public let isFinished: Bool

    public init(_ book: Book) {
        id = book.id
        title = book.title
        author = book.author
        isFinished = book.isFinished
    }
}

public struct NoteView: Encodable, Hashable, Sendable {
    public let id: String
    public let bookID: String?
    public let title: String
    public let body: String

    public init(_ note: Note) {
        id = note.id
        bookID = note.bookID
        title = note.title
        body = note.body
    }

    private enum CodingKeys: String, CodingKey { case id, bookID, title, body }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(bookID, forKey: .bookID)
        try container.encode(title, forKey: .title)
        try container.encode(body, forKey: .body)
    }
}

public struct TaskView: Encodable, Hashable, Sendable {
    public let id: String
    public let title: String
    public let isDone: Bool

    public init(_ task: ReadingTask) {
        id = task.id
        title = task.title
        isDone = task.isDone
    }
}

public struct MoneyView: Encodable, Hashable, Sendable {
    public let minorUnits: Int
    public let currency: String
    /// "12.99 EUR", as the Domain formats it; for text only.
    public let formatted: String

    public init(_ money: Money) {
        minorUnits = money.minorUnits
        currency = money.currency
        formatted = money.formatted
    }

    private enum CodingKeys: String, CodingKey { case minorUnits, currency }
}

public struct ProductView: Encodable, Hashable, Sendable {
    public let id: String
    public let name: String
    public let price: MoneyView

    public init(_ product: Product) {
        id = product.id
        name = product.name
        price = MoneyView(product.price)
    }
}

public struct RouteView: Encodable, Hashable, Sendable {
    public let kind: String
    public let value: String
    public let url: String

    public init(_ route: Route) {
        kind = route.kind.rawValue
        value = route.value
        url = route.url
    }
}

public struct CartItemView: Encodable, Hashable, Sendable {
    public let productID: String
    public let quantity: Int

    public init(_ item: CartItem) {
        productID = item.productID
        quantity = item.quantity
    }
}
