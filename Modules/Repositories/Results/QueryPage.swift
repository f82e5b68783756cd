// MARK: - QueryPage

/// One page of a search or filter over a collection, with the number of all matches.
public struct QueryPage<Value: Sendable>: Sendable {
    /// The matching values of this page, in the collection's order.
    public var items: [Value]
    /// How many records match in all (every page).
    public var totalMatches: Int
    /// Matches skipped before this page.
    public var offset: Int

    public init(items: [Value], totalMatches: Int, offset: Int) {
        self.items = items
        self.totalMatches = totalMatches
        self.offset = offset
    }
}

extension QueryPage: Equatable where Value: Equatable {}
