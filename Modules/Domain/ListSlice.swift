// MARK: - ListSlice

/// The first items of a list as a store sorted, filtered and cut it, and whether more
/// match than it holds — so a screen can say "N shown; more match" without loading or
/// counting the rest.
public struct ListSlice<Item: Sendable>: Sendable {
    /// The matching items, in the order asked for.
    public var items: [Item]
    /// More items match than `items` holds (a limit cut the list).
    public var hasMore: Bool
    /// How many items the whole list holds, filters aside; nil when it was not counted
    /// (a limited list does not count, so its time does not grow with the list).
    public var total: Int?

    public init(items: [Item], hasMore: Bool, total: Int?) {
        self.items = items
        self.hasMore = hasMore
        self.total = total
    }

    /// Sorts, filters and cuts items held in memory, for services that have no store:
    /// `isIncluded` filters, `key` sorts (ties by `id`), then the first `limit` are kept.
    public static func cutting<ID: Comparable>(
        _ all: [Item], where isIncluded: (Item) -> Bool, key: (Item) -> String, id: (Item) -> ID,
        descending: Bool, limit: Int?
    ) -> ListSlice {
        let matching = all.filter(isIncluded).sorted { lhs, rhs in
            let (left, right) = (key(lhs), key(rhs))
            if left != right { return descending ? left > right : left < right }
            return descending ? id(lhs) > id(rhs) : id(lhs) < id(rhs)
        }
        let kept = Array(matching.prefix(limit ?? matching.count))
        return ListSlice(items: kept, hasMore: kept.count < matching.count, total: limit == nil ? all.count : nil)
    }
}

extension ListSlice: Equatable where Item: Equatable {}
