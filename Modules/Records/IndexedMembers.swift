import Domain

// MARK: - IndexedMembers

/// The top-level members a record's store columns are computed from (its sort key,
/// search text and completion; see Storage's `RecordIndexing`), per collection, plus
/// `id`, which the store checks against the row's id.
///
/// Owned here, beside the scanner, so that a pulled page's records can be read once:
/// `RecordListScanner` keeps these members of each record while it finds the record's
/// bounds (`RawRecord.indexedFields`), and the store does not scan the record again.
public enum IndexedMembers {
    /// The members `collection`'s columns need, as `WireFields` keeps them.
    public static func names(for collection: CollectionName) -> [WireFields.Name] {
        switch collection {
        case .books: bookNames
        case .notes: noteNames
        case .tasks: taskNames
        case .products: productNames
        case .cart: cartNames
        case .preferences: preferenceNames
        case .sessions: sessionNames
        }
    }

    private static let bookNames = ["id", "title", "author_name", "finished"].map(WireFields.Name.init)
    private static let noteNames = ["id", "title", "body"].map(WireFields.Name.init)
    private static let taskNames = ["id", "title", "done"].map(WireFields.Name.init)
    private static let productNames = ["id", "name"].map(WireFields.Name.init)
    private static let cartNames = ["id", "product_id"].map(WireFields.Name.init)
    private static let preferenceNames = ["id"].map(WireFields.Name.init)
    private static let sessionNames = ["id", "day", "book_id"].map(WireFields.Name.init)
}

// MARK: - IndexedFields

/// A record's indexed members, read by the scanner that found the record, and the
/// collection whose names they were read for: a store applying the record to another
/// collection reads its own members instead.
public struct IndexedFields: Sendable {
    public var collection: CollectionName
    public var fields: WireFields

    public init(collection: CollectionName, fields: WireFields) {
        self.collection = collection
        self.fields = fields
    }
}
