import Domain
import Records
import Storage

// MARK: - ListOrder → RecordOrder

/// How each list's sort fields become the store's ORDER BY: the folded sort key where
/// it already holds the field first (the listing index's own order, cheapest), a JSON
/// member otherwise, always with a tie-break that keeps the order stable.
extension RecordOrder {
    /// books: `title` is the sort key (title, then author); `author` the sort key's
    /// folded author, then the sort key; `finished` unfinished first, then the sort key;
    /// `id` the id alone.
    init(_ order: ListOrder<BookSortField>) {
        let keys: [Key] = switch order.field {
        case .title: [.sortKey]
        case .author: [.sortKeyFromSecondField, .sortKey]
        case .finished: [.complete, .sortKey]
        case .id: []
        }
        self.init(keys, descending: order.descending)
    }

    /// tasks: `title` is the sort key; `done` open tasks first, then the sort key; `id`
    /// the id alone.
    init(_ order: ListOrder<TaskSortField>) {
        let keys: [Key] = switch order.field {
        case .title: [.sortKey]
        case .done: [.complete, .sortKey]
        case .id: []
        }
        self.init(keys, descending: order.descending)
    }

    /// notes: `title` is the sort key (title, then the body's start); `book` the book id
    /// (notes about no book first), then the sort key; `id` the id alone.
    init(_ order: ListOrder<NoteSortField>) {
        let keys: [Key] = switch order.field {
        case .title: [.sortKey]
        case .book: [.text(WireNames.noteBook), .sortKey]
        case .id: []
        }
        self.init(keys, descending: order.descending)
    }

    /// products: `name` is the sort key; `price` the price in minor units, then the sort
    /// key; `id` the id alone.
    init(_ order: ListOrder<ProductSortField>) {
        let keys: [Key] = switch order.field {
        case .name: [.sortKey]
        case .price: [.number(WireNames.productPrice), .sortKey]
        case .id: []
        }
        self.init(keys, descending: order.descending)
    }
}
