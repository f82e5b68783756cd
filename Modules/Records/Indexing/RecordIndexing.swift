import Vocabulary

// MARK: - RecordIndexing

/// The derived columns the store keeps next to a record's raw JSON — each collection's
/// indexed fields and its sort key, written down once. The store computes them from
/// the wire fields each time a record is written; the repositories compute the same
/// key from a Domain value (`sortKey(of:)`, in RecordDTOs, by `folded(_:)` and
/// `noteKey(searchText:)`) to place a value they just wrote where the store would list it.
///
/// | collection | sort key                 | search text        | complete   |
/// |------------|--------------------------|--------------------|------------|
/// | books      | title, author_name       | title, author_name | `finished` |
/// | notes      | title, body (first 64)   | title, body        | —          |
/// | tasks      | title                    | title              | `done`     |
/// | products   | name                     | name               | —          |
/// | cart       | product_id (as written)  | product_id         | —          |
/// | preferences| — (one record, by id)    | —                  | —          |
/// | sessions   | day (as written)         | book_id            | —          |
///
/// Where the search text equals the sort key (books, tasks, products) the store keeps
/// it once (`searchesSortKey`).
///
/// Text is folded with `SearchText.fold`, so sorting and searching are case- and
/// diacritic-insensitive; fields are joined by `SearchText.fieldSeparator`; ties are
/// broken by id in queries.
public struct RecordIndexing: Hashable, Sendable {
    public var sortKey: String
    public var searchText: String
    /// books: finished; tasks: done; nil for other collections or when absent.
    public var complete: Bool?

    /// Characters of a note's body that take part in its sort key.
    public static let bodySortPrefix = 64

    public init(collection: CollectionName, fields: WireFields) {
        var folder = SearchText.Folder()
        self.init(collection: collection, fields: fields, folder: &folder)
    }

    /// - Parameter folder: folds the text, remembering what it folded for the next
    ///   records (a page of books names the same authors again and again).
    public init(collection: CollectionName, fields: WireFields, folder: inout SearchText.Folder) {
        func text(_ key: some CodingKey) -> String { fields.string(key.stringValue) ?? "" }
        func flag(_ key: some CodingKey) -> Bool? { fields.bool(key.stringValue) }
        switch collection {
        case .books:
            sortKey = Self.folded([text(BookFields.title), text(BookFields.authorName)], with: &folder)
            searchText = sortKey
            complete = flag(BookFields.finished)
        case .notes:
            searchText = Self.folded([text(NoteFields.title), text(NoteFields.body)], with: &folder)
            sortKey = Self.noteKey(searchText: searchText)
            complete = nil
        case .tasks:
            sortKey = Self.folded([text(ReadingTaskFields.title)], with: &folder)
            searchText = sortKey
            complete = flag(ReadingTaskFields.done)
        case .products:
            sortKey = Self.folded([text(ProductFields.name)], with: &folder)
            searchText = sortKey
            complete = nil
        case .cart:
            let productID = text(CartItemFields.productID)
            sortKey = productID
            searchText = Self.folded([productID], with: &folder)
            complete = nil
        case .preferences:
            sortKey = ""
            searchText = ""
            complete = nil
        case .sessions:
            // NB: days are `YYYY-MM-DD`, which sort as text in date order.
            sortKey = text(ReadingSessionFields.day)
            searchText = text(ReadingSessionFields.bookID)
            complete = nil
        }
    }

    // MARK: - The rule

    /// `texts` in order, each folded, joined by the separator: the key of the books', tasks'
    /// and products' sort columns and of every search column but the sessions', and what a
    /// note's key starts from (`noteKey(searchText:)`). The repositories make a Domain
    /// value's key with it (`sortKey(of:)`, RecordDTOs).
    public static func folded(_ texts: [String]) -> String {
        var folder = SearchText.Folder()
        return folded(texts, with: &folder)
    }

    /// Each text folded, joined by the separator. Folding works character by character
    /// and the separator is a control character, which no combining mark attaches to,
    /// so this equals folding the joined text in one pass.
    private static func folded(_ texts: [String], with folder: inout SearchText.Folder) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(texts.reduce(0) { $0 + $1.utf8.count + 1 })
        for (index, text) in texts.enumerated() {
            if index > 0 { bytes.append(contentsOf: SearchText.fieldSeparator.utf8) }
            folder.append(text, to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A note's key: its folded title, then the start of its folded body. A long body
    /// only needs its start to break ties between equal titles, and keeping the key
    /// short keeps the listing index small.
    public static func noteKey(searchText: String) -> String {
        guard let separator = searchText.firstIndex(of: Character(SearchText.fieldSeparator)) else { return searchText }
        let body = searchText[searchText.index(after: separator)...]
        return String(searchText[...separator]) + body.prefix(bodySortPrefix)
    }

    // MARK: - Columns

    /// Whether a collection's search text is its sort key (books, tasks, products): the
    /// store keeps it once.
    public static func searchesSortKey(_ collection: CollectionName) -> Bool {
        switch collection {
        case .books, .tasks, .products, .preferences: true
        case .notes, .cart, .sessions: false
        }
    }

    /// The top-level members each collection's columns are computed from, plus `id`
    /// (checked against the row's id): all `WireFields` needs to read of a record.
    public static func wireNames(for collection: CollectionName) -> [WireFields.Name] {
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

    private static let bookNames = names(BookFields.id, BookFields.title, BookFields.authorName, BookFields.finished)
    private static let noteNames = names(NoteFields.id, NoteFields.title, NoteFields.body)
    private static let taskNames = names(ReadingTaskFields.id, ReadingTaskFields.title, ReadingTaskFields.done)
    private static let productNames = names(ProductFields.id, ProductFields.name)
    private static let cartNames = names(CartItemFields.id, CartItemFields.productID)
    private static let preferenceNames = [WireFields.Name("id")]
    private static let sessionNames = names(ReadingSessionFields.id, ReadingSessionFields.day, ReadingSessionFields.bookID)

    private static func names(_ keys: any CodingKey...) -> [WireFields.Name] {
        keys.map { WireFields.Name($0.stringValue) }
    }
}
