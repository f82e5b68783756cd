import Records

// MARK: - RecordOrder

/// The order a listing returns its records in, as the SQL query sorts them — so a
/// `LIMIT` keeps the first records of that order without loading the rest.
///
/// Every order ends with the record id, so equal keys still come out in one stable
/// order (and paging with an offset never repeats or skips a record).
public struct RecordOrder: Hashable, Sendable {
    /// One sort key.
    public enum Key: Hashable, Sendable {
        /// The collection's folded sort key (`RecordIndexing`): the listing index's order.
        case sortKey
        /// The folded sort key from its second field on (books: the author, then the
        /// title): case- and diacritic-insensitive like the sort key itself.
        case sortKeyFromSecondField
        /// `complete` (books: finished; tasks: done), false before true; records without
        /// it first (the `completion_order` column, schema v10).
        case complete
        /// A top-level text member of the record's JSON, compared without regard to
        /// ASCII case; records without it come first.
        case text(String)
        /// A top-level number member of the record's JSON, numerically.
        case number(String)
    }

    public var keys: [Key]
    public var descending: Bool

    public init(_ keys: [Key], descending: Bool = false) {
        self.keys = keys
        self.descending = descending
    }

    /// The collection's sort key, then id: what the listing index holds in order.
    public static let standard = RecordOrder([.sortKey])
    /// By id alone.
    public static let id = RecordOrder([])

    /// The `ORDER BY` clause and its parameters. Built from fixed fragments: a member
    /// name is a bound JSON path, never part of the SQL text.
    /// - Parameter reversed: the order read from its end: every term the other way.
    func clause(reversed: Bool = false) -> (String, [SQLiteValue]) {
        let direction = descending != reversed ? " DESC" : ""
        var terms: [String] = []
        var parameters: [SQLiteValue] = []
        for key in keys {
            if let column = key.column {
                terms.append(column.name + direction)
                continue
            }
            switch key {
            case .sortKey, .sortKeyFromSecondField, .complete:
                break  // NB: columns, above.
            case .text(let member):
                terms.append("json_extract(json, ?) COLLATE NOCASE" + direction)
                parameters.append(.text(Self.path(member)))
            case .number(let member):
                terms.append("json_extract(json, ?)" + direction)
                parameters.append(.text(Self.path(member)))
            }
        }
        terms.append("id" + direction)
        return (terms.joined(separator: ", "), parameters)
    }

    /// The columns the order sorts by, before the id; nil when a key is a JSON member,
    /// which no index holds and whose value may be missing or of either type.
    var columns: [Key.Column]? {
        var columns: [Key.Column] = []
        for key in keys {
            guard let column = key.column else { return nil }
            columns.append(column)
        }
        return columns
    }

    /// Whether a listing in this order can seek from an anchor (`RecordQuery.anchor`) and
    /// say where its records are (`StoreReader.window`): every key is a column, none NULL.
    public var canSeek: Bool { columns != nil }

    /// `$."member"`: a JSON path naming one top-level member, whatever characters it has.
    static func path(_ member: String) -> String {
        "$.\"" + member.replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

// MARK: - Columns

extension RecordOrder.Key {
    /// A key stored as a column of `records` (a generated one for two of them, schema v10),
    /// which an index holds in order and which is never NULL.
    struct Column: Hashable, Sendable {
        enum Kind: Hashable, Sendable { case text, integer }
        let name: String
        let kind: Kind
    }

    /// The key's column; nil for a JSON member.
    var column: Column? {
        switch self {
        case .sortKey: Column(name: "sort_key", kind: .text)
        case .sortKeyFromSecondField: Column(name: "sort_key_from_second_field", kind: .text)
        // NB: `complete` with -1 for none, which sorts as NULL did, first.
        case .complete: Column(name: "completion_order", kind: .integer)
        case .text, .number: nil
        }
    }
}
