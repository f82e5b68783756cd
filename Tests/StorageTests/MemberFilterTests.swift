import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage

/// Notes of one book and products by price: filtered, sorted and cut in the query, not
/// after loading the collection.
@Suite("Queries: a member filter and member orders in SQL")
struct MemberFilterTests {
    private func store() throws -> ShelfStore {
        let store = try ShelfStore.testStore()
        let notes: [(String, String?, String)] = [
            ("n-1", "b-2", "Walls"), ("n-2", nil, "Anarchy"), ("n-3", "b-1", "Spice"), ("n-4", "b-2", "Odo"),
            ("n-5", "b-1", "arrakis"),
        ]
        try store.seed(notes.enumerated().map { index, note in
            let book = note.1.map { #""\#($0)""# } ?? "null"
            let json = #"{"id":"\#(note.0)","book_id":\#(book),"title":"\#(note.2)","body":"","last_modified":\#(index + 1)}"#
            return RawRecord(id: note.0, lastModified: Int64(index + 1), json: Data(json.utf8))
        }, to: .notes)
        let products: [(String, String, Int)] = [("p-1", "Bookmark", 350), ("p-2", "Tote", 1200), ("p-3", "Lamp", 900)]
        try store.seed(products.enumerated().map { index, product in
            let json = #"{"id":"\#(product.0)","name":"\#(product.1)","price_minor":\#(product.2),"currency":"EUR","last_modified":\#(index + 1)}"#
            return RawRecord(id: product.0, lastModified: Int64(index + 1), json: Data(json.utf8))
        }, to: .products)
        return store
    }

    private func ids(_ store: ShelfStore, _ query: RecordQuery) throws -> [String] {
        try store.records(query).map(\.id)
    }

    @Test func notesOfOneBookAreFilteredByTheQuery() throws {
        let store = try store()
        let ofB1 = RecordQuery(.notes, member: MemberEquality("book_id", equals: "b-1"))
        #expect(try ids(store, ofB1) == ["n-5", "n-3"], "arrakis before Spice: folded title order")
        #expect(try store.count(ofB1) == 2)
        #expect(try ids(store, RecordQuery(.notes, search: "o", member: MemberEquality("book_id", equals: "b-2"))) == ["n-4"])
        #expect(try ids(store, RecordQuery(.notes, member: MemberEquality("book_id", equals: "b-9"))).isEmpty)
        #expect(try ids(store, RecordQuery(.notes, member: MemberEquality("book_id\"]", equals: "b-1"))).isEmpty,
                "a strange member name is a bound path that matches nothing")
    }

    @Test func notesSortByBookWithThoseAboutNoBookFirst() throws {
        let byBook = RecordOrder([.text("book_id"), .sortKey])
        #expect(try ids(store(), RecordQuery(.notes, order: byBook)) == ["n-2", "n-5", "n-3", "n-4", "n-1"])
        #expect(try ids(store(), RecordQuery(.notes, limit: 2, order: RecordOrder(byBook.keys, descending: true))) == ["n-1", "n-4"])
    }

    @Test func productsSortByPriceNumerically() throws {
        let byPrice = RecordOrder([.number("price_minor"), .sortKey])
        #expect(try ids(store(), RecordQuery(.products, order: byPrice)) == ["p-1", "p-3", "p-2"], "350 < 900 < 1200, not as text")
        #expect(try ids(store(), RecordQuery(.products, limit: 1, order: RecordOrder(byPrice.keys, descending: true))) == ["p-2"])
    }

    @Test func recordsAreFoundByIDsInTheQueryOrder() throws {
        let store = try store()
        #expect(try ids(store, RecordQuery(.products, ids: ["p-2", "p-1", "p-9"])) == ["p-1", "p-2"], "Bookmark before Tote; p-9 is not there")
        #expect(try ids(store, RecordQuery(.products, limit: 1, order: RecordOrder([.sortKey], descending: true), ids: ["p-1", "p-3"])) == ["p-3"])
        #expect(try ids(store, RecordQuery(.products, ids: [])).isEmpty)
        #expect(try ids(store, RecordQuery(.products, ids: ["p-1\"]", "p-1' OR 1=1"])).isEmpty, "ids are values, never SQL or JSON")
        #expect(try store.count(RecordQuery(.products, ids: ["p-1", "p-2"])) == 2)
    }

    @Test func aLimitedListingInTheStandardOrderNeedsNoSortStep() throws {
        let plan = try store().read { reader in
            try reader.queryPlan(RecordQuery(.notes, limit: 50, member: MemberEquality("book_id", equals: "b-1")), counting: false)
        }
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "the listing index gives the order: \(plan)")
    }
}
