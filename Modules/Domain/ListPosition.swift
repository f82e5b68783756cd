// MARK: - ListPosition

/// A record's place in one order of a list, as the store sorts it: the value of each of
/// the order's keys, then the record's id, which breaks every tie.
///
/// Made by the store when it reads a window, and handed back to it as a `ListAnchor`, so
/// the next window can start right after (or before) that record instead of stepping
/// through every row above it with an offset. Nobody between the store and the screen
/// looks inside: the values are the store's own folded keys, not what a reader sees.
public struct ListPosition: Hashable, Sendable {
    /// One key's value.
    public enum Value: Hashable, Sendable {
        case integer(Int64)
        case text(String)
    }

    /// The order's keys, in order (an order by id alone has none).
    public var values: [Value]
    /// The record's id: the last key of every order.
    public var id: String

    public init(values: [Value], id: String) {
        self.values = values
        self.id = id
    }
}

// MARK: - ListAnchor

/// Where a read of a list starts: next to a record whose `ListPosition` an earlier read
/// gave, on one side of it, with or without it.
///
/// The rows after an anchor are those that sort after its position now, whatever moved
/// meanwhile: a record inserted, removed or edited above it does not shift the rows below,
/// which is what keeps a seek as cheap deep in a list as at its start.
public struct ListAnchor: Hashable, Sendable {
    public enum Side: Hashable, Sendable {
        /// The rows that sort after the position.
        case after
        /// The rows that sort before the position.
        case before
    }

    public var side: Side
    public var position: ListPosition
    /// Whether a record at exactly the position is included (a window read again from its
    /// own first row).
    public var inclusive: Bool

    public init(_ side: Side, _ position: ListPosition, inclusive: Bool = false) {
        self.side = side
        self.position = position
        self.inclusive = inclusive
    }
}
