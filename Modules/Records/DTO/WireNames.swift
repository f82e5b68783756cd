import Domain

// MARK: - WireNames

/// Wire field names that other modules ask for by name — to label a record, sort a
/// list, follow a reference, or accept `--json`'s names for a field — read from the
/// DTOs' coding keys, so each name is still written once, where its DTO decodes it.
public enum WireNames {
    /// The member a person recognises a record of `collection` by (nil: it has none).
    public static func label(of collection: CollectionName) -> String? {
        switch collection {
        case .books: BookDTO.CodingKeys.title.stringValue
        case .notes: NoteDTO.CodingKeys.title.stringValue
        case .tasks: ReadingTaskDTO.CodingKeys.title.stringValue
        case .products: ProductDTO.CodingKeys.name.stringValue
        case .cart: CartItemDTO.CodingKeys.productID.stringValue
        case .sessions: ReadingSessionDTO.CodingKeys.day.stringValue
        case .preferences: nil
        }
    }

    /// A record's title (books, notes and tasks share the name).
    public static let title = BookDTO.CodingKeys.title.stringValue
    /// A product's name.
    public static let productName = ProductDTO.CodingKeys.name.stringValue
    /// A product's price in minor units.
    public static let productPrice = ProductDTO.CodingKeys.priceMinor.stringValue
    /// A cart line's product.
    public static let cartProduct = CartItemDTO.CodingKeys.productID.stringValue
    /// A cart line's quantity.
    public static let cartQuantity = CartItemDTO.CodingKeys.quantity.stringValue
    /// A reading session's minutes.
    public static let sessionMinutes = ReadingSessionDTO.CodingKeys.minutes.stringValue
    /// A reading session's day.
    public static let sessionDay = ReadingSessionDTO.CodingKeys.day.stringValue

    /// The Domain's names of fields (as `--json` prints them: `author`, `isFinished`,
    /// `bookID`) for their wire names, where the two differ.
    public static func wireNamesByDomainName(in collection: CollectionName) -> [String: String] {
        switch collection {
        case .books:
            ["author": BookDTO.CodingKeys.authorName.stringValue, "isFinished": BookDTO.CodingKeys.finished.stringValue]
        case .notes: ["bookID": NoteDTO.bookIDField]
        case .tasks: ["isDone": ReadingTaskDTO.CodingKeys.done.stringValue]
        case .cart: ["productID": cartProduct]
        case .sessions: ["bookID": ReadingSessionDTO.bookIDField]
        case .preferences:
            ["showFinished": ReaderPreferencesDTO.showFinishedField, "dailyGoalMinutes": ReaderPreferencesDTO.dailyGoalField]
        case .products: [:]
        }
    }
}
