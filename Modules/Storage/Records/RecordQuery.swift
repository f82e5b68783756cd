import Domain
import Foundation
import Records

// MARK: - RecordQuery

/// Which live records of one collection to list or count, and in which order: by
/// default the collection's sort key with ties broken by id (see `RecordIndexing` for
/// each collection's key), or any `RecordOrder`.
///
/// Records waiting for a pushed deletion are never included.
public struct RecordQuery: Hashable, Sendable {
    public var collection: CollectionName
    /// A case- and diacritic-insensitive substring of the searchable fields (books:
    /// title and author; notes: title and body; tasks: title; products: name; cart:
    /// product id). Empty or whitespace-only matches everything.
    public var search: String?
    /// books: `finished`; tasks: `done`. Nil matches every record. Collections without
    /// such a field match nothing when it is set.
    public var complete: Bool?
    /// At most this many records; nil for all.
    public var limit: Int?
    /// Records to skip, for paging with `limit`.
    public var offset: Int
    /// The listing's order; counting ignores it.
    public var order: RecordOrder
    /// Only records whose top-level text member equals a value (notes: `book_id`); nil
    /// matches every record. Read from each candidate's JSON, in the query.
    public var member: MemberEquality?
    /// Only records with one of these ids (favorites); nil matches every record. Bound as
    /// one JSON array, however many there are.
    public var ids: [String]?
    /// Only the records on one side of a position an earlier listing gave
    /// (`StoreReader.window`): a seek along the order's index, so a window deep in a list
    /// costs what one at its start does. `offset` then counts from the anchor. Needs an
    /// order that `RecordOrder.canSeek`; counting ignores it.
    public var anchor: ListAnchor?
    /// Read the order from its end (or backward from a `.before` anchor): `limit` and
    /// `offset` count from there, and the records come last first. Counting ignores it.
    public var reversed: Bool

    public init(
        _ collection: CollectionName, search: String? = nil, complete: Bool? = nil, limit: Int? = nil, offset: Int = 0,
        order: RecordOrder = .standard, member: MemberEquality? = nil, ids: [String]? = nil,
        anchor: ListAnchor? = nil, reversed: Bool = false
    ) {
        self.collection = collection
        self.search = search
        self.complete = complete
        self.limit = limit
        self.offset = offset
        self.order = order
        self.member = member
        self.ids = ids
        self.anchor = anchor
        self.reversed = reversed
    }

    /// Books, optionally only finished (`true`) or unfinished (`false`) ones.
    public static func books(search: String? = nil, finished: Bool? = nil, limit: Int? = nil, offset: Int = 0) -> RecordQuery {
        RecordQuery(.books, search: search, complete: finished, limit: limit, offset: offset)
    }

    /// Reading tasks, optionally only done (`true`) or open (`false`) ones.
    public static func tasks(search: String? = nil, done: Bool? = nil, limit: Int? = nil, offset: Int = 0) -> RecordQuery {
        RecordQuery(.tasks, search: search, complete: done, limit: limit, offset: offset)
    }

    /// Whether it matches every live record of its collection (no search or filter).
    var isWholeCollection: Bool {
        complete == nil && foldedSearch == nil && member == nil && ids == nil
    }

    /// The folded needle, or nil when the search matches everything.
    var foldedSearch: String? {
        guard let search else { return nil }
        let needle = SearchText.fold(search.trimmingCharacters(in: .whitespaces))
        return needle.isEmpty ? nil : needle
    }
}

// MARK: - MemberEquality

/// A filter on one top-level text member of a record's JSON: `book_id = "b-42"`.
public struct MemberEquality: Hashable, Sendable {
    public var name: String
    public var value: String

    public init(_ name: String, equals value: String) {
        self.name = name
        self.value = value
    }

    /// `$."name"`: the member as a bound JSON path, whatever characters it has.
    var path: String { RecordOrder.path(name) }
}
