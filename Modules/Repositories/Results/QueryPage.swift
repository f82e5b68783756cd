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
    /// Whether more records match after this page.
    public var hasMore: Bool

    public init(items: [Value], totalMatches: Int?, offset: Int, hasMore: Bool? = nil) {
        self.items = items
        self.totalMatches = totalMatches
        self.offset = offset
        self.hasMore = hasMore ?? (totalMatches.map { offset + items.count < $0 } ?? false)
    }
}

extension QueryPage: Equatable where Value: Equatable {}
