import Domain

// MARK: - QueryPage

/// One page of a search or filter over a collection, with the number of all matches.
public struct QueryPage<Value: Sendable>: Sendable {
    /// The matching values of this page, in the collection's order.
    public var items: [Value]
    /// How many records match in all (every page); nil when the page was asked for
    /// without counting and more records match than it holds.
    public var totalMatches: Int?
    /// Matches skipped before this page.
    public var offset: Int
    /// Whether more records match after this page (before it, for a page read backward).
    public var hasMore: Bool
    /// The positions of the page's first and last records in its order, which the next
    /// page can seek from (`ListAnchor`); nil for an empty page or an order with no
    /// positions (a JSON member's).
    public var first: ListPosition?
    public var last: ListPosition?

    public init(items: [Value], totalMatches: Int?, offset: Int, hasMore: Bool? = nil) {
        self.items = items
        self.totalMatches = totalMatches
        self.offset = offset
        self.hasMore = hasMore ?? (totalMatches.map { offset + items.count < $0 } ?? false)
    }
}

extension QueryPage: Equatable where Value: Equatable {}
