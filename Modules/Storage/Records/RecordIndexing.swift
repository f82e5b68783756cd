import Domain
import Records

// MARK: - RecordIndexing

/// The derived columns the store keeps next to a record's raw JSON, computed from the
/// wire fields each time the record is written.
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
/// Where the search text equals the sort key (books, tasks, products) the row stores it
/// once, in `sort_key`, and keeps `search_text` empty (schema v3).
///
/// Text is folded with `SearchText.fold`, so sorting and searching are case- and
/// diacritic-insensitive; ties are broken by id in queries.
struct RecordIndexing: Hashable, Sendable {
    var sortKey: String
    var searchText: String
    /// books: finished; tasks: done; nil for other collections or when absent.
    var complete: Bool?

    /// Characters of a note's body that take part in its sort key.
    static let bodySortPrefix = 64

    init(collection: CollectionName, fields: WireFields) {
        var folder = SearchText.Folder()
        self.init(collection: collection, fields: fields, folder: &folder)
    }

    /// - Parameter folder: folds the text, remembering what it folded for the next
    ///   records (a page of books names the same authors again and again).
    init(collection: CollectionName, fields: WireFields, folder: inout SearchText.Folder) {
        /// Each field folded, joined by the separator. Folding works character by
        /// character and the separator is a control character, which no combining mark
        /// attaches to, so this equals folding the joined text in one pass.
        func folded(_ keys: String...) -> String {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(keys.reduce(0) { $0 + (fields.string($1)?.utf8.count ?? 0) + 1 })
            for (index, key) in keys.enumerated() {
                if index > 0 { bytes.append(contentsOf: SearchText.fieldSeparator.utf8) }
                folder.append(fields.string(key) ?? "", to: &bytes)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        switch collection {
        case .books:
            sortKey = folded("title", "author_name")
            searchText = sortKey
            complete = fields.bool("finished")
        case .notes:
            searchText = folded("title", "body")
            // A long body only needs its start to break ties between equal titles, and
            // keeping the key short keeps the listing index small.
            if let separator = searchText.firstIndex(of: Character(SearchText.fieldSeparator)) {
                let body = searchText[searchText.index(after: separator)...]
                sortKey = String(searchText[...separator]) + body.prefix(Self.bodySortPrefix)
            } else {
                sortKey = searchText
            }
            complete = nil
        case .tasks:
            sortKey = folded("title")
            searchText = sortKey
            complete = fields.bool("done")
        case .products:
            sortKey = folded("name")
            searchText = sortKey
            complete = nil
        case .cart:
            let productID = fields.string("product_id") ?? ""
            sortKey = productID
            searchText = folded("product_id")
            complete = nil
        case .preferences:
            sortKey = ""
            searchText = ""
            complete = nil
        case .sessions:
            // NB: days are `YYYY-MM-DD`, which sort as text in date order.
            sortKey = fields.string("day") ?? ""
            searchText = fields.string("book_id") ?? ""
            complete = nil
        }
    }

    /// Whether a collection's search text is its sort key (books, tasks, products):
    /// such rows store an empty `search_text`, and searches read `sort_key` (schema v3).
    static func searchesSortKey(_ collection: CollectionName) -> Bool {
        switch collection {
        case .books, .tasks, .products, .preferences: true
        case .notes, .cart, .sessions: false
        }
    }

    /// The `search_text` column: empty where the sort key already holds it.
    func storedSearchText(_ collection: CollectionName) -> String {
        Self.searchesSortKey(collection) ? "" : searchText
    }

    /// The column a search of `collection` reads.
    static func searchColumn(_ collection: CollectionName) -> String {
        searchesSortKey(collection) ? "sort_key" : "search_text"
    }

    /// The top-level members each collection's columns are computed from, plus `id`
    /// (checked against the row's id): all `WireFields` needs to read of a record.
    static func wireNames(for collection: CollectionName) -> [WireFields.Name] {
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
