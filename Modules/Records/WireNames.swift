import Vocabulary

// MARK: - WireNames

/// Wire field names that other modules ask for by name — to label a record, sort a
/// list, follow a reference, or accept `--json`'s names for a field — read from each
/// collection's members (`BookFields`, …), so each name is still written once, where its
/// DTO decodes it.
public enum WireNames {
    /// The member a person recognises a record of `collection` by (nil: it has none).
    public static func label(of collection: CollectionName) -> String? {
        switch collection {
        case .books: BookFields.title.stringValue
        case .notes: NoteFields.title.stringValue
        case .tasks: ReadingTaskFields.title.stringValue
        case .products: ProductFields.name.stringValue
        case .cart: CartItemFields.productID.stringValue
        case .sessions: ReadingSessionFields.day.stringValue
        case .preferences: nil
        }
    }

    /// A record's title (books, notes and tasks share the name).
    public static let title = BookFields.title.stringValue
    /// A product's name.
    public static let productName = ProductFields.name.stringValue
    /// A product's price in minor units.
    public static let productPrice = ProductFields.priceMinor.stringValue
    /// A cart line's product.
    public static let cartProduct = CartItemFields.productID.stringValue
    /// A cart line's quantity.
    public static let cartQuantity = CartItemFields.quantity.stringValue
    /// A reading session's minutes.
    public static let sessionMinutes = ReadingSessionFields.minutes.stringValue
    /// A reading session's day.
    public static let sessionDay = ReadingSessionFields.day.stringValue
    /// The book a note belongs to, for queries that follow it.
    public static let noteBook = NoteFields.bookID.stringValue
    /// A note's body.
    public static let noteBody = NoteFields.body.stringValue
    /// The book a reading session belongs to, for queries that follow it.
    public static let sessionBook = ReadingSessionFields.bookID.stringValue

    /// The Domain's names of fields (as `--json` prints them: `author`, `isFinished`,
    /// `bookID`) for their wire names, where the two differ.
    public static func wireNamesByDomainName(in collection: CollectionName) -> [String: String] {
        switch collection {
        case .books:
            ["author": BookFields.authorName.stringValue, "isFinished": BookFields.finished.stringValue]
        case .notes: ["bookID": noteBook]
        case .tasks: ["isDone": ReadingTaskFields.done.stringValue]
        case .cart: ["productID": cartProduct]
        case .sessions: ["bookID": sessionBook]
        case .preferences:
            ["showFinished": PreferenceFields.showFinished, "dailyGoalMinutes": PreferenceFields.dailyGoalMinutes]
        case .products: [:]
        }
    }
}
