import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage

/// Keyset paging (`RecordQuery.anchor`, `reversed`): a window read by seeking from a
/// position holds exactly the rows an `OFFSET` would, in every order of the library, with
/// every filter, at both ends and across ties of the order's key.
@Suite("Windows: a seek reads what an offset does")
struct WindowSeekTests {
    /// Twelve books with ties everywhere: equal titles, equal authors, one book twice
    /// over under two ids (its whole sort key tied, broken by the id), accents and case
    /// that fold together, and two books without `finished` at all (NULL `complete`).
    static func store() throws -> ShelfStore {
        let store = try ShelfStore.testStore()
        let books: [(String, String, String, Bool?)] = [
            ("b-01", "Dune", "Frank Herbert", true),
            ("b-02", "Dune", "Frank Herbert", false),
            ("b-03", "dune", "frank herbert", true),
            ("b-04", "Émile", "Zola", false),
            ("b-05", "Emile", "Zola", nil),
            ("b-06", "A Wizard of Earthsea", "Ursula K. Le Guin", false),
            ("b-07", "The Dispossessed", "Ursula K. Le Guin", true),
            ("b-08", "Beloved", "Toni Morrison", false),
            ("b-09", "Beloved", "Albert Camus", nil),
            ("b-10", "L'Étranger", "Albert Camus", false),
            ("b-11", "Zazie", "Raymond Queneau", true),
            ("b-12", "Cien años de soledad", "Gabriel García Márquez", false),
        ]
        let records = try books.enumerated().map { index, book in
            var fields: [String: Any] = ["id": book.0, "title": book.1, "author_name": book.2, "last_modified": index + 1]
            if let finished = book.3 { fields["finished"] = finished }
            return try RawRecord(collection: .books, json: JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]))
        }
        try store.seed(records, to: .books)
        return store
    }

    /// Every order of the library, both ways.
    static let orders: [RecordOrder] = [[RecordOrder.Key.sortKey], [.sortKeyFromSecondField, .sortKey], [.complete, .sortKey], []]
        .flatMap { keys in [RecordOrder(keys), RecordOrder(keys, descending: true)] }

    /// No filter, the unfinished filter, a search, and both.
    static let filters: [(search: String?, complete: Bool?)] = [(nil, nil), (nil, false), (nil, true), ("e", nil), ("u", false)]

    @Test(arguments: orders)
    func everySeekFromEveryRowReadsWhatAnOffsetDoes(_ order: RecordOrder) throws {
        let store = try Self.store()
        for filter in Self.filters {
            let query = RecordQuery(.books, search: filter.search, complete: filter.complete, order: order)
            let all = try store.window(query)
            let ids = all.map(\.record.id)
            #expect(try store.records(query).map(\.id) == ids, "a window lists what a listing does")
            func offsetWindow(_ offset: Int, _ limit: Int) throws -> [String] {
                var paged = query
                (paged.offset, paged.limit) = (offset, limit)
                return try store.records(paged).map(\.id)
            }
            func seek(_ anchor: ListAnchor?, reversed: Bool, skip: Int, limit: Int) throws -> [String] {
                var seeking = query
                (seeking.anchor, seeking.reversed, seeking.offset, seeking.limit) = (anchor, reversed, skip, limit)
                let found = try store.window(seeking).map(\.record.id)
                return reversed ? found.reversed() : found
            }
            for (place, row) in all.enumerated() {
                for limit in [1, 3] {
                    for skip in [0, 1] {
                        let label = "\(order) \(filter) at \(place), \(limit) rows, skip \(skip)"
                        #expect(try seek(ListAnchor(.after, row.position), reversed: false, skip: skip, limit: limit)
                                == offsetWindow(place + 1 + skip, limit), "after: \(label)")
                        #expect(try seek(ListAnchor(.after, row.position, inclusive: true), reversed: false, skip: skip, limit: limit)
                                == offsetWindow(place + skip, limit), "from: \(label)")
                        let top = place - skip
                        #expect(try seek(ListAnchor(.before, row.position), reversed: true, skip: skip, limit: limit)
                                == offsetWindow(max(0, top - limit), max(0, min(limit, top))), "before: \(label)")
                        #expect(try seek(ListAnchor(.before, row.position, inclusive: true), reversed: true, skip: skip, limit: limit)
                                == offsetWindow(max(0, top + 1 - limit), max(0, min(limit, top + 1))), "through: \(label)")
                    }
                }
            }
            for skip in 0...ids.count {
                let end = ids.count - skip
                #expect(try seek(nil, reversed: true, skip: skip, limit: 3) == offsetWindow(max(0, end - 3), max(0, min(3, end))),
                        "from the end: \(order) \(filter), skip \(skip)")
            }
        }
    }

    @Test func aSeekFromARecordThatIsGoneStillFindsItsNeighbours() throws {
        let store = try Self.store()
        let query = RecordQuery(.books, order: RecordOrder([.sortKeyFromSecondField, .sortKey]))
        let all = try store.window(query)
        let gone = all[4]
        try store.write { tx in try tx.removeRecord(.books, id: gone.record.id) }

        var seeking = query
        (seeking.anchor, seeking.limit) = (ListAnchor(.after, gone.position), 2)

        #expect(try store.window(seeking).map(\.record.id) == all[5...6].map(\.record.id))
    }

    @Test func anAnchorThatDoesNotFitTheOrderIsRefused() throws {
        let store = try Self.store()
        let titlePosition = try #require(try store.window(RecordQuery(.books, limit: 1)).first?.position)
        let byAuthor = RecordQuery(.books, order: RecordOrder([.sortKeyFromSecondField, .sortKey]), anchor: ListAnchor(.after, titlePosition))
        let byMember = RecordQuery(.books, order: RecordOrder([.text("author_name")]))

        #expect(throws: StorageError.self) { try store.window(byAuthor) }
        #expect(throws: StorageError.self) { try store.window(byMember) }
        #expect(!RecordOrder([.number("price")]).canSeek)
    }

    @Test func theAuthorColumnSplitsTheKeyAtTheSeparatorTheMigrationNames() throws {
        #expect(SearchText.fieldSeparator == "\u{1F}", "v10's generated column splits at char(31)")
        let store = try Self.store()
        let positions = try store.window(RecordQuery(.books, limit: 1, order: RecordOrder([.sortKeyFromSecondField, .sortKey])))
        #expect(positions.first?.position.values.first == .text("albert camus"))
    }
}

// MARK: - Query plans

/// The library's listings walk an index in every order, filter and direction, with or
/// without an anchor: none sorts the books (a temp B-tree for ORDER BY), which is what
/// cost 24–158 ms at 100,000 books before v10.
@Suite("Query plans: every order of the library walks an index")
struct WindowPlanTests {
    @Test(arguments: WindowSeekTests.orders)
    func noListingOfBooksSortsThem(_ order: RecordOrder) throws {
        let store = try WindowSeekTests.store()
        for filter in WindowSeekTests.filters {
            let query = RecordQuery(.books, search: filter.search, complete: filter.complete, limit: 41, order: order)
            let anchor = try #require(try store.window(query).dropFirst().first?.position, "\(order) \(filter)")
            let reads: [(ListAnchor?, Bool)] = [
                (nil, false), (nil, true), (ListAnchor(.after, anchor), false), (ListAnchor(.after, anchor, inclusive: true), false),
                (ListAnchor(.before, anchor), true), (ListAnchor(.before, anchor, inclusive: true), true),
            ]
            for (seekFrom, reversed) in reads {
                var read = query
                (read.anchor, read.reversed, read.offset) = (seekFrom, reversed, 7)
                let plan = try store.read { try $0.queryPlan(read, counting: false) }
                #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(order) \(filter) \(String(describing: seekFrom)) reversed: \(reversed): \(plan)")
                #expect(plan.contains { $0.hasPrefix("SEARCH records USING ") && $0.contains("INDEX") }, "\(plan)")
            }
        }
    }
}
