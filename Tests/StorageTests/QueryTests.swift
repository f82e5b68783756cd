import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage

@Suite("Queries over records")
struct QueryTests {
    /// A store holding the 36 seed books of `Fixtures/seed/books.json`.
    private func seededStore() throws -> ShelfStore {
        let store = try ShelfStore.testStore()
        try store.seed(try Wire.seedBooks(), to: .books)
        return store
    }

    private func titles(_ store: ShelfStore, _ query: RecordQuery) throws -> [String] {
        try store.read { reader in try reader.records(query) }.map { record in
            (try? WireFields.parse(record.json))?.string("title") ?? "?"
        }
    }

    // MARK: - Search

    @Test func searchIgnoresCaseAndDiacritics() throws {
        let store = try seededStore()
        #expect(try titles(store, RecordQuery(.books, search: "cafe")) == ["Café Society"])
        #expect(try titles(store, RecordQuery(.books, search: "CAFÉ")) == ["Café Society"])
        #expect(try titles(store, RecordQuery(.books, search: "anos de")) == ["Cien años de soledad"])
        #expect(try titles(store, RecordQuery(.books, search: "etranger")) == ["L'Étranger"])
        #expect(try titles(store, RecordQuery(.books, search: "miserables")) == ["Les Misérables"])
    }

    @Test func searchCoversTheAuthor() throws {
        let store = try seededStore()
        let leGuin = try titles(store, RecordQuery(.books, search: "le guin"))
        #expect(leGuin == ["A Wizard of Earthsea", "The Dispossessed", "The Left Hand of Darkness"])
        #expect(try titles(store, RecordQuery(.books, search: "garcia marquez")) == ["Cien años de soledad"])
        #expect(try titles(store, RecordQuery(.books, search: "emile")) == ["Café Society"])
    }

    @Test func searchNeverMatchesAcrossTwoFields() throws {
        // "Dune" + "Frank Herbert": the end of the title and the start of the author are
        // separate fields, so "dune frank" is not a substring of the book.
        let store = try seededStore()
        #expect(try titles(store, RecordQuery(.books, search: "dune frank")).isEmpty)
        #expect(try titles(store, RecordQuery(.books, search: "dune")) == ["Dune"])
    }

    @Test func searchTextComesFromKintoEscapedJSON() throws {
        // Kinto escapes every non-ASCII character as \uXXXX, surrogate pairs included.
        let store = try ShelfStore.testStore()
        let json = Data(#"{"id":"b1","title":"Caf\u00e9 \ud83d\udcda","author_name":"Zo\u00eb","finished":false,"last_modified":7}"#.utf8)
        try store.seed([try RawRecord(collection: .books, json: json)], to: .books)

        let found = try store.read { try $0.records(RecordQuery(.books, search: "CAFE 📚")) }
        #expect(found.map(\.id) == ["b1"])
        #expect(found.first?.json == json, "the raw bytes are stored as received")
        #expect(try store.read { try $0.count(RecordQuery(.books, search: "zoe")) } == 1)
    }

    @Test func anEmptyOrBlankSearchMatchesEverything() throws {
        let store = try seededStore()
        #expect(try store.read { try $0.count(RecordQuery(.books, search: "")) } == 36)
        #expect(try store.read { try $0.count(RecordQuery(.books, search: "   ")) } == 36)
    }

    @Test func searchCharactersAreNotPatterns() throws {
        // `%` and `_` would be wildcards in LIKE; the store matches substrings literally.
        let store = try seededStore()
        #expect(try store.read { try $0.count(RecordQuery(.books, search: "%")) } == 0)
        #expect(try store.read { try $0.count(RecordQuery(.books, search: "_")) } == 0)
        #expect(try store.read { try $0.count(RecordQuery(.books, search: "l'e")) } == 1)
    }

    @Test func searchAgreesWithDomainFolding() throws {
        // The store's definition of "matches" is SearchFolding's, for every seed book.
        let store = try seededStore()
        let books = try Wire.seedBooks()
        for query in ["le", "É", "ka", "the", "ano", "zola", "ł", "SNOW"] {
            let expected = try books.filter { remote in
                let fields = try WireFields.parse(remote.json)
                return SearchFolding.matches(query, in: fields.string("title") ?? "") || SearchFolding.matches(query, in: fields.string("author_name") ?? "")
            }.map(\.id).sorted()
            let found = try store.read { try $0.records(RecordQuery(.books, search: query)) }.map(\.id).sorted()
            #expect(found == expected, "query \(query)")
        }
    }

    // MARK: - Sorting

    @Test func listsAreSortedByFoldedTitleThenAuthorThenID() throws {
        let store = try ShelfStore.testStore()
        try store.seed([
            Wire.remoteBook("b3", title: "émile", author: "B", lastModified: 1),
            Wire.remoteBook("b1", title: "Zed", author: "A", lastModified: 2),
            Wire.remoteBook("b2", title: "Dune Messiah", author: "A", lastModified: 3),
            Wire.remoteBook("b5", title: "dune", author: "Z", lastModified: 4),
            Wire.remoteBook("b4", title: "Dune", author: "A", lastModified: 5),
            Wire.remoteBook("b6", title: "Dune", author: "A", lastModified: 6),
        ], to: .books)

        let ids = try store.read { try $0.records(RecordQuery(.books)) }.map(\.id)
        // "Dune"/"A" twice (tie broken by id), then "dune"/"Z", then "Dune Messiah",
        // then "émile" folded to "emile", then "Zed".
        #expect(ids == ["b4", "b6", "b5", "b2", "b3", "b1"])
    }

    @Test func pagesFollowTheSortOrder() throws {
        let store = try seededStore()
        let all = try store.read { try $0.records(RecordQuery(.books)) }.map(\.id)
        let first = try store.read { try $0.records(RecordQuery(.books, limit: 10)) }.map(\.id)
        let second = try store.read { try $0.records(RecordQuery(.books, limit: 10, offset: 10)) }.map(\.id)
        #expect(first == Array(all[0..<10]))
        #expect(second == Array(all[10..<20]))
        #expect(try titles(store, RecordQuery(.books, limit: 3)) == ["A Wizard of Earthsea", "Anna Karenina", "Austerlitz"])
    }

    @Test func eachCollectionSortsByItsOwnFields() throws {
        let store = try ShelfStore.testStore()
        try store.write { tx in
            try tx.saveLocal(.notes, id: "n1", json: Wire.note("n1", title: "Quote", body: "zebra"))
            try tx.saveLocal(.notes, id: "n2", json: Wire.note("n2", title: "Quote", body: "Apple"))
            try tx.saveLocal(.tasks, id: "t1", json: Wire.task("t1", title: "Zzz"))
            try tx.saveLocal(.tasks, id: "t2", json: Wire.task("t2", title: "aaa"))
            try tx.saveLocal(.cart, id: "prod-2", json: Data(#"{"id":"prod-2","product_id":"prod-2","quantity":1}"#.utf8))
            try tx.saveLocal(.cart, id: "prod-1", json: Data(#"{"id":"prod-1","product_id":"prod-1","quantity":3}"#.utf8))
            try tx.storePulled(RawRecord(id: "p2", lastModified: 1, json: Data(#"{"id":"p2","name":"Bookmark"}"#.utf8)), in: .products)
            try tx.storePulled(RawRecord(id: "p1", lastModified: 2, json: Data(#"{"id":"p1","name":"Pen"}"#.utf8)), in: .products)
        }
        #expect(try store.read { try $0.records(RecordQuery(.notes)) }.map(\.id) == ["n2", "n1"])
        #expect(try store.read { try $0.records(RecordQuery(.tasks)) }.map(\.id) == ["t2", "t1"])
        #expect(try store.read { try $0.records(RecordQuery(.cart)) }.map(\.id) == ["prod-1", "prod-2"])
        #expect(try store.read { try $0.records(RecordQuery(.products)) }.map(\.id) == ["p2", "p1"])
        #expect(try store.read { try $0.count(RecordQuery(.notes, search: "APPLE")) } == 1)
    }

    // MARK: - Filters and counts

    @Test func finishedAndUnfinishedBooksComeFromTheFinishedField() throws {
        let store = try seededStore()
        let books = try Wire.seedBooks()
        let finishedIDs = try books.filter { try WireFields.parse($0.json).bool("finished") == true }.map(\.id)

        let finished = try store.read { try $0.records(RecordQuery(.books, complete: true)) }
        let unfinished = try store.read { try $0.records(RecordQuery(.books, complete: false)) }
        #expect(Set(finished.map(\.id)) == Set(finishedIDs))
        #expect(finished.count + unfinished.count == 36)
        #expect(try store.read { try $0.count(RecordQuery(.books, complete: true)) } == finishedIDs.count)
        #expect(try store.read { try $0.count(RecordQuery(.books, search: "le guin", complete: false)) } == 1)
    }

    @Test func aLocalEditMovesABookBetweenFinishedAndUnfinished() throws {
        let store = try seededStore()
        let before = try store.read { try $0.count(RecordQuery(.books, complete: true)) }
        try store.write { tx in
            try tx.saveLocal(.books, id: "book-003", json: Wire.book("book-003", title: "A Wizard of Earthsea", author: "Ursula K. Le Guin", finished: true))
        }
        #expect(try store.read { try $0.count(RecordQuery(.books, complete: true)) } == before + 1)
    }

    @Test func countsIgnoreLocallyDeletedRecordsAndOtherCollections() throws {
        let store = try seededStore()
        try store.write { tx in
            try tx.deleteLocal(.books, id: "book-001")
            try tx.saveLocal(.tasks, id: "t1", json: Wire.task("t1", title: "Read Dune", done: true))
        }
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 35)
        #expect(try store.read { try $0.count(RecordQuery(.books, search: "dune")) } == 0)
        #expect(try store.read { try $0.count(RecordQuery(.tasks)) } == 1)
        #expect(try store.read { try $0.count(RecordQuery(.tasks, complete: true)) } == 1)
        #expect(try store.read { try $0.count(RecordQuery(.notes)) } == 0)
        #expect(try store.read { try $0.count(RecordQuery(.books, limit: 1)) } == 35, "count ignores the page")
    }

    @Test func oneShotQueriesMatchTheReaderOnes() async throws {
        let store = try seededStore()
        try store.write { tx in try tx.saveLocal(.tasks, id: "t1", json: Wire.task("t1", title: "Finish Dune", done: false)) }

        #expect(try store.records(.books(finished: false, limit: 5)) == store.read { try $0.records(RecordQuery(.books, complete: false, limit: 5)) })
        #expect(try store.count(.books(search: "le guin", finished: true)) == 2)
        #expect(try store.count(.tasks(done: false)) == 1)
        #expect(try store.record(.books, id: "book-001")?.lastModified == 1000)
        #expect(try store.pendingCount() == 1)
        #expect(try store.conflictCount() == 0)
        #expect(try store.deadLetterCount() == 0)
        let provider: any SyncStatusProviding = store
        #expect(try await provider.syncStatus().pendingChanges == 1)
    }

    @Test func getByIDReturnsTheStoredBytes() throws {
        let store = try seededStore()
        let seed = try Wire.seedBooks().first { $0.id == "book-036" }
        let record = try store.read { try $0.record(.books, id: "book-036") }
        #expect(record?.json == seed?.json)
        #expect(record?.lastModified == seed?.lastModified)
        #expect(try store.read { try $0.record(.notes, id: "book-036") } == nil)
    }
}

@Suite("Query plans")
struct QueryPlanTests {
    /// Searching must scan an index that holds the search text (no row lookups), in sort
    /// order, whatever the filters: that is what keeps a search over 100,000 records
    /// interactive (see StorageBench).
    @Test(arguments: [
        RecordQuery(.books, search: "cafe"), RecordQuery(.books, search: "cafe", complete: true),
        RecordQuery(.books, complete: false), RecordQuery(.books), RecordQuery(.books, search: "x", limit: 50),
        RecordQuery(.notes, search: "cafe"), RecordQuery(.tasks, search: "read", complete: false),
    ])
    func listingsAndCountsUseTheListingIndex(_ query: RecordQuery) throws {
        let store = try ShelfStore.testStore()
        try store.seed(try Wire.seedBooks(), to: .books)

        let listing = try store.read { try $0.queryPlan(query, counting: false) }
        let counting = try store.read { try $0.queryPlan(query, counting: true) }

        #expect(listing.contains { $0.contains("USING INDEX records_listing ") || $0.contains("USING COVERING INDEX records_listing ") }, "\(listing)")
        #expect(!listing.contains { $0.contains("TEMP B-TREE") }, "rows come in index order: \(listing)")
        #expect(counting.contains { $0.contains("COVERING INDEX") }, "\(counting)")
    }
}

@Suite("Query plans: id lookups")
struct IDLookupPlanTests {
    /// Prefixes and the neighbours short ids are computed from are ranges of the
    /// `(collection, id)` index, never a scan of the collection.
    @Test func idPrefixesAndNeighboursAreIndexRangeSearches() throws {
        let store = try ShelfStore.testStore()
        try store.seed(try Wire.seedBooks(), to: .books)

        let plans = try store.read { try $0.idLookupPlans() }

        #expect(plans.count == 4, "\(plans)")
        for plan in plans {
            #expect(plan.hasPrefix("SEARCH records USING INDEX records_by_id (collection=? AND id") || plan.hasPrefix("SEARCH records USING COVERING INDEX records_by_id (collection=? AND id"), "\(plans)")
        }
    }
}
