import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage
@testable import Sync

// MARK: - A pulled page, by the rule

/// `SyncRules.applyPulled` over the store's fast page writes: a record a waiting change
/// holds is never written, and the rest of the page goes in as it would without it.
@Suite struct PulledPageRuleTests {
    private func load(_ page: [RawRecord], into store: ShelfStore, _ bulk: BulkLoad, morePagesFollow: Bool) throws {
        let held = try store.write(bulkLoad: bulk) { tx in
            try SyncRules(tx).applyPulled(page, to: .books, morePagesFollow: morePagesFollow).count
        }
        #expect(held == 0)
    }

    @Test func aPageWithAWaitingChangeKeepsPageOrderAndHoldsThatRecord() throws {
        // GIVEN a reader's edit waiting on one of the page's books
        let store = try ShelfStore.testStore()
        try store.write { tx in try tx.saveLocal(.books, id: "m", json: Data(#"{"id":"m","title":"Mine"}"#.utf8)) }
        let page = ["z", "m", "a"].enumerated().map { offset, id in
            Wire.remoteBook(id, title: "Book \(offset)", lastModified: Int64(3000 + offset))
        }

        // WHEN the page is applied
        let held = try store.write { tx in try SyncRules(tx).applyPulled(page, to: .books).map(\.record.id) }

        // THEN the waiting record is held, and the others went in in page order
        #expect(held == ["m"])
        let inserted = try store.read { reader in
            try reader.db.query("SELECT id FROM records ORDER BY rowid", operation: "ids by rowid") { $0.text(0) }
        }
        #expect(inserted == ["m", "z", "a"])
    }

    @Test func anEditDuringTheLoadBuildsTheIndexFirstAndTheLoadGoesOnWithUpserts() throws {
        // GIVEN a load under way
        let store = try ShelfStore.testStore()
        let bulk = BulkLoad()
        try load(Wire.books(0..<2000), into: store, bulk, morePagesFollow: true)
        #expect(try !IdentityIndexProbe.isPresent(store))

        // WHEN the reader edits a loaded book (a `shelf` command's write transaction)
        try store.write { tx in try tx.saveLocal(.books, id: "b7", json: Data(#"{"id":"b7","title":"Mine"}"#.utf8)) }

        // THEN the index was built for it, and the edit waits to be pushed
        #expect(try IdentityIndexProbe.isPresent(store))
        #expect(try store.read { try $0.pendingCount() } == 1)

        // WHEN the next page brings that book too
        var page = Wire.books(2000..<3000)
        page.append(Wire.remoteBook("b7", title: "Server", lastModified: 9000))
        let held = try store.write(bulkLoad: bulk) { tx in
            try SyncRules(tx).applyPulled(page, to: .books, morePagesFollow: true).map(\.record.id)
        }

        // THEN it is held for the merge, not overwritten, and the load is over
        #expect(held == ["b7"])
        #expect(!bulk.isLoading)
        #expect(try store.read { try $0.record(.books, id: "b7")?.json } == Data(#"{"id":"b7","title":"Mine"}"#.utf8))
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 3000)
    }
}
