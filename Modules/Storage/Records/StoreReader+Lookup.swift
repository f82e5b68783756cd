import Domain
import Records

// MARK: - Finding records by what a reader typed

/// The index range queries behind short ids and title references
/// (`RecordLookupService`): nothing here reads more than the rows it returns, except
/// the title and author matches, which scan the listing index once like a search.
extension StoreReader {
    /// A page of matches and how many there are in all.
    public struct Matches: Sendable {
        public var records: [StoredRecord]
        public var total: Int
    }

    // MARK: Id prefixes

    /// The live records of `collection` whose id starts with `prefix`, in id order: a
    /// range of the `(collection, id)` index.
    /// - Parameter limit: at most this many records; `total` counts them all.
    public func records(_ collection: CollectionName, idPrefix prefix: String, limit: Int) throws(StorageError) -> Matches {
        let range: [SQLiteValue] = [.text(collection.rawValue), .text(prefix), .text(Self.upperBound(ofPrefix: prefix))]
        let records = try db.query(
            Self.prefixSQL, range + [.integer(Int64(max(0, limit)))], operation: "find \(collection.rawValue) by id prefix",
            row: Self.storedRecord)
        let total = try db.queryFirst(Self.prefixCountSQL, range, operation: "count \(collection.rawValue) by id prefix") {
            $0.int(0)
        } ?? 0
        return Matches(records: records, total: total)
    }

    /// The ids just before and just after `id` in id order (whether or not `id` itself
    /// is there): what its shortest unique prefix depends on. Two lookups in the
    /// `(collection, id)` index, which they never leave: rows waiting for a pushed
    /// deletion count too, which can make a prefix a character longer than it needs to
    /// be, never one that names two live records.
    public func neighbouringIDs(of id: String, in collection: CollectionName) throws(StorageError) -> (before: String?, after: String?) {
        let parameters: [SQLiteValue] = [.text(collection.rawValue), .text(id)]
        let before = try db.queryFirst(Self.idBeforeSQL, parameters, operation: "find the id before one of \(collection.rawValue)") {
            $0.text(0)
        }
        let after = try db.queryFirst(Self.idAfterSQL, parameters, operation: "find the id after one of \(collection.rawValue)") {
            $0.text(0)
        }
        return (before, after)
    }

    /// The ids just before and just after each of `ids`, as `neighbouringIDs(of:in:)`
    /// finds them for one, in one statement: the ids go in as one bound JSON array and
    /// SQLite makes the same two `(collection, id)` index lookups for each, without a
    /// statement per id: the short ids of a 2,035-book search ~3 ms instead of ~4 in the
    /// CLI, most of it the 4,070 look-ups themselves.
    /// - Returns: one entry per id of `ids` (repeated ids repeat), in no promised order.
    public func neighbouringIDs(
        of ids: [String], in collection: CollectionName
    ) throws(StorageError) -> [(id: String, before: String?, after: String?)] {
        guard !ids.isEmpty else { return [] }
        return try db.query(
            Self.neighboursSQL, [.text(collection.rawValue), .text(Self.jsonArray(ids))],
            operation: "find the ids around \(ids.count) of \(collection.rawValue)"
        ) { row in (row.text(0), row.optionalText(1), row.optionalText(2)) }
    }

    static let neighboursSQL = """
        SELECT ids.value,
               (SELECT id FROM records WHERE collection = ?1 AND id < ids.value ORDER BY id DESC LIMIT 1),
               (SELECT id FROM records WHERE collection = ?1 AND id > ids.value ORDER BY id LIMIT 1)
        FROM json_each(?2) AS ids
        """

    static let prefixSQL =
        "SELECT \(recordColumns) FROM records WHERE collection = ? AND id >= ? AND id < ? AND deleted = 0 ORDER BY id LIMIT ?"
    static let prefixCountSQL = "SELECT count(*) FROM records WHERE collection = ? AND id >= ? AND id < ? AND deleted = 0"
    static let idBeforeSQL = "SELECT id FROM records WHERE collection = ? AND id < ? ORDER BY id DESC LIMIT 1"
    static let idAfterSQL = "SELECT id FROM records WHERE collection = ? AND id > ? ORDER BY id LIMIT 1"

    /// SQLite's plans for the id lookups, one line per step of each — to check that
    /// they stay index range searches.
    func idLookupPlans() throws(StorageError) -> [String] {
        let range: [SQLiteValue] = [.text("books"), .text("abcd"), .text("abcd\u{10FFFF}")]
        var plans: [String] = []
        for (sql, parameters) in [(Self.prefixSQL, range + [.integer(10)]), (Self.prefixCountSQL, range),
                                  (Self.idBeforeSQL, Array(range.prefix(2))), (Self.idAfterSQL, Array(range.prefix(2)))] {
            plans += try db.query("EXPLAIN QUERY PLAN " + sql, parameters, operation: "explain") { $0.text(3) }
        }
        return plans
    }

    /// SQLite's plan for `neighbouringIDs(of:in:)` over many ids, one line per step — to
    /// check that each id costs index lookups, never a scan of the collection.
    func neighboursPlan() throws(StorageError) -> [String] {
        try db.query(
            "EXPLAIN QUERY PLAN " + Self.neighboursSQL, [.text("books"), .text(#"["abcd","efgh"]"#)], operation: "explain"
        ) { $0.text(3) }
    }

    /// Every id of `collection` (deletions waiting to be pushed included, as for
    /// `neighbouringIDs`), in id order: one pass over the `(collection, id)` index, for
    /// the short ids of a list that shows most of a collection.
    public func allIDs(_ collection: CollectionName) throws(StorageError) -> [String] {
        try db.query(
            "SELECT id FROM records WHERE collection = ? ORDER BY id",
            [.text(collection.rawValue)], operation: "list \(collection.rawValue) ids") { $0.text(0) }
    }

    /// The smallest text greater than every text that starts with `prefix`: any id that
    /// starts with `prefix` is below `prefix` followed by U+10FFFF, the largest scalar
    /// (ids are ASCII; `RecordID`).
    static func upperBound(ofPrefix prefix: String) -> String {
        prefix + "\u{10FFFF}"
    }

    // MARK: Titles

    /// The live records of `collection` whose title — the first field of the sort key
    /// (books, notes; the whole key of tasks and products: `RecordIndexing`), folded like
    /// search — equals `title`: a range of the listing index.
    public func records(_ collection: CollectionName, titleEquals title: String, limit: Int) throws(StorageError) -> Matches {
        let folded = SearchText.fold(title.trimmingCharacters(in: .whitespaces))
        if collection == .tasks || collection == .products {
            // NB: a key of one field: the title is the whole key.
            let key: [SQLiteValue] = [.text(collection.rawValue), .text(folded)]
            let records = try db.query(
                "SELECT \(Self.recordColumns) FROM records WHERE collection = ? AND deleted = 0 AND sort_key = ? ORDER BY id LIMIT ?",
                key + [.integer(Int64(max(0, limit)))], operation: "find \(collection.rawValue) by title", row: Self.storedRecord)
            let total = try db.queryFirst(
                "SELECT count(*) FROM records WHERE collection = ? AND deleted = 0 AND sort_key = ?",
                key, operation: "count \(collection.rawValue) by title") { $0.int(0) } ?? 0
            return Matches(records: records, total: total)
        }
        // NB: U+001F separates the title from the next field, and U+0020 is the next
        // code point: the keys from "title␟" up to "title " are exactly this title's.
        let range: [SQLiteValue] = [
            .text(collection.rawValue), .text(folded + SearchText.fieldSeparator), .text(folded + " "),
        ]
        let records = try db.query(
            "SELECT \(Self.recordColumns) FROM records WHERE collection = ? AND deleted = 0 AND sort_key >= ? AND sort_key < ? ORDER BY sort_key, id LIMIT ?",
            range + [.integer(Int64(max(0, limit)))], operation: "find \(collection.rawValue) by title", row: Self.storedRecord)
        let total = try db.queryFirst(
            "SELECT count(*) FROM records WHERE collection = ? AND deleted = 0 AND sort_key >= ? AND sort_key < ?",
            range, operation: "count \(collection.rawValue) by title") { $0.int(0) } ?? 0
        return Matches(records: records, total: total)
    }

    /// The live records of `collection` whose title (as above) contains `text`, folded
    /// like search: one scan of the listing index.
    public func records(_ collection: CollectionName, titleContains text: String, limit: Int) throws(StorageError) -> Matches {
        let folded = SearchText.fold(text.trimmingCharacters(in: .whitespaces))
        // NB: the first occurrence ends before the first U+001F exactly when the text is
        // in the title (folded text holds no U+001F). The scan is in C, as search's is
        // (`TextContainsFunction`), instead of cutting the title out of every key; `instr`
        // finds the positions only in keys that hold the text.
        return try keyMatches(
            collection, test: "\(TextContainsFunction.name)(sort_key, ?1) AND (instr(sort_key, char(31)) = 0 OR instr(sort_key, ?1) + length(?1) <= instr(sort_key, char(31)))",
            folded, limit: limit, operation: "find \(collection.rawValue) by words of the title")
    }

    /// The live books whose author, folded like search, equals `author`: one scan of the
    /// listing index.
    public func books(byAuthor author: String, limit: Int) throws(StorageError) -> Matches {
        let folded = SearchText.fold(author.trimmingCharacters(in: .whitespaces))
        // NB: the key is "title␟author": it holds "␟author" and ends with it.
        return try keyMatches(
            .books, test: "\(TextContainsFunction.name)(sort_key, ?1) AND substr(sort_key, -length(?1)) = ?1",
            SearchText.fieldSeparator + folded, limit: limit, operation: "find books by author")
    }

    /// One scan of the listing index for the ids whose sort key passes `test` (with the
    /// text bound as `?1`), then the first `limit` records.
    private func keyMatches(
        _ collection: CollectionName, test: String, _ text: String, limit: Int, operation: String
    ) throws(StorageError) -> Matches {
        let ids = try db.query(
            "SELECT id FROM records WHERE collection = ?2 AND deleted = 0 AND \(test) ORDER BY sort_key, id",
            [.text(text), .text(collection.rawValue)], operation: operation) { $0.text(0) }
        var records: [StoredRecord] = []
        for id in ids.prefix(max(0, limit)) {
            if let record = try record(collection, id: id) { records.append(record) }
        }
        return Matches(records: records, total: ids.count)
    }
}
