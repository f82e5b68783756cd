import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage

@Suite("Bulk pulls and the listing index")
struct BulkPullTests {
    /// `count` books named "Book <n>" by two authors, one in three by "Ursula K. Le Guin".
    private func hasListingIndex(_ store: ShelfStore) throws -> Bool {
        try store.read { reader in try ListingIndexes.arePresent(reader.db) }
    }

    private func apply(_ page: [RawRecord], to store: ShelfStore, morePagesFollow: Bool) throws {
        try store.write { tx in try tx.storePulled(page, in: .books, morePagesFollow: morePagesFollow) }
    }

    /// Searches, counts and listings — what the index serves — as the store answers them.
    private func answers(_ store: ShelfStore) throws -> [String] {
        try store.read { reader in
            [
                "\(try reader.count(RecordQuery(.books)))",
                "\(try reader.count(RecordQuery(.books, search: "ursula")))",
                "\(try reader.count(RecordQuery(.books, search: "zola", complete: true)))",
                try reader.records(RecordQuery(.books, search: "le guin", limit: 5)).map(\.id).joined(separator: ","),
                try reader.records(RecordQuery(.books, complete: false, limit: 3, offset: 2)).map(\.id).joined(separator: ","),
            ]
        }
    }

    @Test func aFirstPullOfManyPagesBuildsTheIndexWithItsLastPage() throws {
        // GIVEN an empty store and the same books loaded page by page into a second one
        let bulk = try ShelfStore.testStore()
        let reference = try ShelfStore.testStore()
        try reference.seed(Wire.books(0..<3500), to: .books)

        // WHEN a large first page arrives with more to come
        try apply(Wire.books(0..<2000), to: bulk, morePagesFollow: true)

        // THEN the index is left out, and every answer is still right
        #expect(try !hasListingIndex(bulk))
        #expect(try bulk.read { reader in try reader.count(RecordQuery(.books, search: "ursula")) } == 667)

        // WHEN the rest arrives, the last page saying so
        try apply(Wire.books(2000..<3000), to: bulk, morePagesFollow: true)
        #expect(try !hasListingIndex(bulk))
        try apply(Wire.books(3000..<3500), to: bulk, morePagesFollow: false)

        // THEN the index is back and the store answers exactly as one loaded with it
        #expect(try hasListingIndex(bulk))
        #expect(try answers(bulk) == answers(reference))
        #expect(try bulk.read { try $0.integrityCheck() } == ["ok"])
    }

    @Test func smallPagesAndStoresThatAlreadyHoldRecordsKeepTheIndex() throws {
        // A small page: not worth rebuilding the index for.
        let small = try ShelfStore.testStore()
        try apply(Wire.books(0..<(PulledPageWrite.bulkPageMinimum - 1)), to: small, morePagesFollow: true)
        #expect(try hasListingIndex(small))

        // A large page into a store that holds more records than it brings.
        let full = try ShelfStore.testStore()
        try full.seed(Wire.books(0..<3000), to: .books)
        try apply(Wire.books(3000..<5000), to: full, morePagesFollow: true)
        #expect(try hasListingIndex(full))

        // A large page that is the last one: applied with the index.
        let last = try ShelfStore.testStore()
        try apply(Wire.books(0..<2000), to: last, morePagesFollow: false)
        #expect(try hasListingIndex(last))
    }

    @Test func aFailedPageKeepsTheIndexAsItWas() throws {
        let store = try ShelfStore.testStore()
        var page = Wire.books(0..<2000)
        page.append(RawRecord(id: "broken", lastModified: 5000, json: Data("[1, 2]".utf8)))
        #expect(throws: StorageError.self) {
            try store.write { tx in try tx.storePulled(page, in: .books, morePagesFollow: true) }
        }
        // The drop was rolled back with the rest of the page.
        #expect(try hasListingIndex(store))
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 0)
    }

    @Test func aStoreLeftWithoutItsIndexByAKilledPullGetsItBackWhenOpened() throws {
        // GIVEN a file whose bulk pull stopped after its first page
        let folder = try TemporaryDirectory()
        let path = folder.file("killed.sqlite")
        do {
            let store = try ShelfStore(location: .file(path))
            try apply(Wire.books(0..<2000), to: store, morePagesFollow: true)
            #expect(try !hasListingIndex(store))
        }

        // WHEN it is opened again
        let reopened = try ShelfStore(location: .file(path))

        // THEN the index is there, and searches read it
        #expect(try hasListingIndex(reopened))
        let plan = try reopened.read { try $0.queryPlan(RecordQuery(.books, search: "ursula"), counting: false) }
        #expect(plan.contains { $0.contains("records_listing") }, "\(plan)")
        #expect(try reopened.read { try $0.count(RecordQuery(.books, search: "ursula")) } == 667)
    }

    // MARK: - Key order

    @Test func keyOrderIsTheOrderOfTheIdIndex() throws {
        // GIVEN a page whose ids come in no order, some sharing their first eight bytes,
        // one a prefix of another, one not ASCII
        let ids = ["zeta", "0001-b", "Alpha", "00000000-b", "00000000-a", "00000000", "m\u{E9}lange", "beta", "_x", "-y", ""]
        let page = ids.enumerated().map { offset, id in
            Wire.remoteBook(id, title: "Book \(offset)", lastModified: Int64(2000 - offset))
        }

        // WHEN it is put in key order, and stored
        let ordered = Array(StoreTransaction.inKeyOrder(page)).map(\.id)
        let store = try ShelfStore.testStore()
        try apply(page, to: store, morePagesFollow: false)

        // THEN that is the order SQLite's index keeps the ids in
        let keyed = try store.read { reader in
            try reader.db.query("SELECT id FROM records ORDER BY collection, id", operation: "ids by key") { $0.text(0) }
        }
        #expect(ordered == keyed)
        #expect(Set(ordered) == Set(ids))
    }

    @Test func keyOrderKeepsTheOrderOfAnIdGivenTwice() {
        // A page Kinto never sends, but one `storePulled` accepts: the later version wins.
        let page = [Wire.remoteBook("b", title: "Early", lastModified: 10), Wire.remoteBook("a", title: "A", lastModified: 11),
                    Wire.tombstone("b", lastModified: 12), Wire.remoteBook("b", title: "Late", lastModified: 13)]
        #expect(Array(StoreTransaction.inKeyOrder(page)).map(\.lastModified) == [11, 10, 12, 13])
    }
}
