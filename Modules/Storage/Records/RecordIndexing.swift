import Domain

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
        func folded(_ keys: String...) -> String {
            keys.map { SearchText.fold(fields.string($0) ?? "") }.joined(separator: SearchText.fieldSeparator)
        }
        switch collection {
        case .books:
            sortKey = folded("title", "author_name")
            searchText = sortKey
            complete = fields.bool("finished")
        case .notes:
            searchText = folded("title", "body")
            // A long body only needs its start to break ties between equal titles,
            // and keeping the key short keeps the sort index small.
            let body = SearchText.fold(String((fields.string("body") ?? "").prefix(Self.bodySortPrefix)))
            sortKey = SearchText.fold(fields.string("title") ?? "") + SearchText.fieldSeparator + body
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
            searchText = SearchText.fold(productID)
            complete = nil
        }
    }
}
