// MARK: - Each collection's members on the wire

// Each collection's members, named once: its DTO decodes and encodes by these keys (they
// are its `CodingKeys`), the store computes its columns from them (`RecordIndexing`), and
// other modules ask for them by name (`WireNames`). A case's name is the DTO's property,
// its raw value the member's name on the wire.

/// `books` record: `{id, title, author_name, finished, last_modified}`.
public enum BookFields: String, CodingKey, Sendable {
    case id, title, finished
    case authorName = "author_name"
    case lastModified = "last_modified"
}

/// `notes` record: `{id, book_id: String|null, title, body, last_modified}`.
public enum NoteFields: String, CodingKey, Sendable {
    case id, title, body
    case bookID = "book_id"
    case lastModified = "last_modified"
}

/// `tasks` record: `{id, title, done, last_modified}`.
public enum ReadingTaskFields: String, CodingKey, Sendable {
    case id, title, done
    case lastModified = "last_modified"
}

/// `products` record in the shared catalog: `{id, name, price_minor, currency, last_modified}`.
public enum ProductFields: String, CodingKey, Sendable {
    case id, name, currency
    case priceMinor = "price_minor"
    case lastModified = "last_modified"
}

/// `cart` record: `{id (= product id), product_id, quantity, last_modified}`.
public enum CartItemFields: String, CodingKey, Sendable {
    case id, quantity
    case productID = "product_id"
    case lastModified = "last_modified"
}

/// `sessions` record: `{id, minutes, day: "YYYY-MM-DD", book_id: String|null, last_modified}`.
public enum ReadingSessionFields: String, CodingKey, Sendable {
    case id, minutes, day
    case bookID = "book_id"
    case lastModified = "last_modified"
}

/// The `preferences` record `reader`:
/// `{id, show_finished?, daily_goal_minutes?, "favorite:<book id>": true …, last_modified}`:
/// every setting and every favorite a member of its own, so the sync engine merges them
/// one by one.
public enum PreferenceFields {
    public static let showFinished = "show_finished"
    public static let dailyGoalMinutes = "daily_goal_minutes"
    /// The prefix of a favorite's member; the rest is the book id.
    public static let favoritePrefix = "favorite:"

    /// The member that marks the book `bookID` a favorite.
    public static func favorite(_ bookID: String) -> String { favoritePrefix + bookID }
}
