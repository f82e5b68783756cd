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
        /// `complete` (books: finished; tasks: done), false before true.
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
    var clause: (String, [SQLiteValue]) {
        let direction = descending ? " DESC" : ""
        var terms: [String] = []
        var parameters: [SQLiteValue] = []
        for key in keys {
            switch key {
            case .sortKey:
                terms.append("sort_key" + direction)
            case .sortKeyFromSecondField:
                terms.append("substr(sort_key, instr(sort_key, ?) + 1)" + direction)
                parameters.append(.text(SearchText.fieldSeparator))
            case .complete:
                terms.append("complete" + direction)
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

    /// `$."member"`: a JSON path naming one top-level member, whatever characters it has.
    static func path(_ member: String) -> String {
        "$.\"" + member.replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
