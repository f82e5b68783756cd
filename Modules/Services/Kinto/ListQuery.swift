import Foundation

// MARK: - ListQuery

/// What to ask of a collection's record list.
public struct ListQuery: Sendable, Hashable {
    /// `_since`: only records changed after this timestamp, tombstones of deletions
    /// included (strictly greater: the cursor's own record is not repeated).
    public var since: Int?
    /// `_before`: only records stamped before this timestamp (strictly less), tombstones
    /// included as with `since`. With both, the list (or the count, `KintoRequest.count`)
    /// of one stamp range.
    public var before: Int?
    /// `_limit`: records per page; the server's maximum (10,000 by default) when nil.
    public var limit: Int?
    /// `_sort`: field names, `-` first for descending. Kinto lists newest first unless
    /// told otherwise; the sync engine sorts by `last_modified` so paging stays stable.
    public var sort: [String]
    /// `If-None-Match`: the server answers 304 (`PageResult.notModified`) when the
    /// collection has not changed since this ETag.
    public var ifNoneMatch: ETag?
    /// `_fields`: only these members of each record (with `id` and `last_modified`,
    /// which Kinto always sends; a tombstone keeps `deleted` when it is named). Empty
    /// for whole records.
    public var fields: [String]
    /// `in_id`: only the records with these ids. Empty for every record.
    public var ids: [String]

    public init(
        since: Int? = nil, limit: Int? = nil, sort: [String] = [], ifNoneMatch: ETag? = nil, fields: [String] = [],
        ids: [String] = [], before: Int? = nil
    ) {
        self.since = since
        self.before = before
        self.limit = limit
        self.sort = sort
        self.ifNoneMatch = ifNoneMatch
        self.fields = fields
        self.ids = ids
    }

    /// The list's path relative to the API root, query included, e.g.
    /// `/buckets/default/collections/books/records?_since=5&_limit=1000&_sort=last_modified`:
    /// what a `POST /batch` sub-request names. `ifNoneMatch` is a header, not part of it.
    public func path(in collection: KintoCollectionPath) -> String {
        let items = queryItems
        return items.isEmpty ? collection.recordsPath : collection.recordsPath + "?" + APIClient.queryString(items)
    }

    var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if let since { items.append(URLQueryItem(name: "_since", value: String(since))) }
        if let before { items.append(URLQueryItem(name: "_before", value: String(before))) }
        if let limit { items.append(URLQueryItem(name: "_limit", value: String(limit))) }
        if !sort.isEmpty { items.append(URLQueryItem(name: "_sort", value: sort.joined(separator: ","))) }
        if !fields.isEmpty { items.append(URLQueryItem(name: "_fields", value: fields.joined(separator: ","))) }
        if !ids.isEmpty { items.append(URLQueryItem(name: "in_id", value: ids.joined(separator: ","))) }
        return items
    }
}
