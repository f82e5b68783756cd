import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage

/// Listings sorted and cut by the query itself: `--sort` and `--limit` never load the
/// whole collection.
@Suite("Queries: sorted and limited in SQL")
struct RecordOrderTests {
    private func store() throws -> ShelfStore {
        let store = try ShelfStore.testStore()
        let books: [(String, String, String, Bool)] = [
            ("b-1", "Dune", "Frank Herbert", true),
            ("b-2", "Cien años de soledad", "Gabriel García Márquez", false),
            ("b-3", "L'Étranger", "Émile Zola", false),
            ("b-4", "The Dispossessed", "ursula K. Le Guin", true),
            ("b-5", "Beloved", "Toni Morrison", false),
        ]
        let records = books.enumerated().map { index, book in
            let json = #"{"id":"\#(book.0)","title":"\#(book.1)","author_name":"\#(book.2)","finished":\#(book.3),"last_modified":\#(index + 1)}"#
            return RawRecord(id: book.0, lastModified: Int64(index + 1), json: Data(json.utf8))
        }
        try store.seed(records, to: .books)
        return store
    }

    private func ids(_ store: ShelfStore, _ order: RecordOrder, limit: Int? = nil, search: String? = nil) throws -> [String] {
        try store.records(RecordQuery(.books, search: search, limit: limit, order: order)).map(\.id)
    }

    @Test func theStandardOrderIsTheFoldedTitle() throws {
        #expect(try ids(store(), .standard) == ["b-5", "b-2", "b-1", "b-3", "b-4"])
        #expect(try ids(store(), RecordOrder([.sortKey], descending: true)) == ["b-4", "b-3", "b-1", "b-2", "b-5"])
    }

    @Test func theAuthorSortsWithoutCaseOrAccents() throws {
        // Émile before Frank, ursula (lower case) after Toni.
        let byAuthor = RecordOrder([.sortKeyFromSecondField, .sortKey])
        #expect(try ids(store(), byAuthor) == ["b-3", "b-1", "b-2", "b-5", "b-4"])
        #expect(try ids(store(), RecordOrder(byAuthor.keys, descending: true), limit: 2) == ["b-4", "b-5"])
    }

    @Test func completeSortsUnfinishedFirstThenByKey() throws {
        #expect(try ids(store(), RecordOrder([.complete, .sortKey])) == ["b-5", "b-2", "b-3", "b-1", "b-4"])
    }

    @Test func aJSONMemberSortsAsTextOrNumber() throws {
        #expect(try ids(store(), RecordOrder([.text("author_name")]), limit: 1) == ["b-1"], "Frank, then Gabriel…; É sorts after ASCII")
        #expect(try ids(store(), RecordOrder([.number("last_modified")], descending: true), limit: 2) == ["b-5", "b-4"])
        #expect(try ids(store(), RecordOrder([.text("no \"such\" member")])) == ["b-1", "b-2", "b-3", "b-4", "b-5"], "ties fall to the id")
    }

    @Test func theLimitKeepsTheFirstOfTheOrderAfterTheSearch() throws {
        #expect(try ids(store(), .id, limit: 3) == ["b-1", "b-2", "b-3"])
        #expect(try ids(store(), RecordOrder([], descending: true), limit: 1, search: "e") == ["b-5"])
    }

    @Test func aLimitedSearchInTheStandardOrderWalksTheListingIndex() throws {
        let plan = try store().read { reader in
            try reader.queryPlan(RecordQuery(.books, search: "le guin", limit: 50), counting: false)
        }
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "no sort step: \(plan)")
        let sorted = try store().read { reader in
            try reader.queryPlan(RecordQuery(.books, search: "le guin", limit: 50, order: RecordOrder([.sortKey], descending: true)), counting: false)
        }
        #expect(!sorted.contains { $0.contains("TEMP B-TREE") }, "descending walks the index backwards: \(sorted)")
    }
}
