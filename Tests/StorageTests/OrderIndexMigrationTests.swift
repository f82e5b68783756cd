import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage

/// Schema v10: the author and completion orders as generated columns with an index each.
@Suite("Schema v10: indexes for the author and completion orders")
struct OrderIndexMigrationTests {
    @Test func aV9StoreMigratesKeepingItsBooksAndListsThemByIndex() throws {
        // GIVEN a v9 store holding three books as v9 wrote them, one without `finished`
        let folder = try TemporaryDirectory()
        let path = folder.file("v9.sqlite")
        do {
            let connection = try SQLiteConnection(path: path.path)
            try SchemaMigrator.migrate(connection, path: path.path, to: 9)
            let books: [(String, String, String, Int64?)] = [
                ("b1", "Dune", "Frank Herbert", 1), ("b2", "Beloved", "Toni Morrison", 0), ("b3", "Zazie", "Albert Camus", nil),
            ]
            for (id, title, author, complete) in books {
                let key = SearchText.fold(title) + SearchText.fieldSeparator + SearchText.fold(author)
                try connection.run(
                    "INSERT INTO records (collection, id, json, last_modified, deleted, sort_key, search_text, complete) VALUES ('books', ?, ?, 7, 0, ?, '', ?)",
                    [.text(id), .blob(Wire.book(id, title: title, author: author)), .text(key), .integer(complete)],
                    operation: "seed v9")
            }
        }

        // WHEN the store opens it
        let store = try ShelfStore(location: .file(path))

        // THEN it is at v10, the books are there, and each order is read from its index
        let connection = try SQLiteConnection(path: path.path)
        #expect(try SchemaMigrator.version(of: connection) == Schema.currentVersion)
        #expect(Schema.currentVersion >= 10)
        let byAuthor = try store.window(RecordQuery(.books, order: RecordOrder([.sortKeyFromSecondField, .sortKey])))
        #expect(byAuthor.map(\.record.id) == ["b3", "b1", "b2"])
        #expect(byAuthor.map(\.position.values.first) == [.text("albert camus"), .text("frank herbert"), .text("toni morrison")])
        let byCompletion = try store.window(RecordQuery(.books, order: RecordOrder([.complete, .sortKey])))
        #expect(byCompletion.map(\.record.id) == ["b3", "b2", "b1"], "no `finished` sorts first, as NULL did")
        #expect(byCompletion.map(\.position.values.first) == [.integer(-1), .integer(0), .integer(1)])
        #expect(try store.record(.books, id: "b1")?.lastModified == 7)
        #expect(try store.count(RecordQuery(.books, complete: false)) == 1)
        let indexes = try store.read { reader in
            try reader.db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'records_by_%' ORDER BY name",
                                operation: "list indexes") { $0.text(0) }
        }
        #expect(indexes == ["records_by_completion", "records_by_id", "records_by_second_field"])
        #expect(try store.read { try ListingIndexes.arePresent($0.db) })
        #expect(try store.read { try $0.integrityCheck() } == ["ok"])
    }

    @Test func aBulkPullDropsTheOrderIndexesAndLeavesThemToTheNextRun() throws {
        let store = try ShelfStore.testStore()
        try store.write { tx in try ListingIndexes.drop(tx.db) }
        #expect(try !store.read { try ListingIndexes.arePresent($0.db) })
        #expect(try !store.read { try $0.hasOrderIndexes() })

        // The bulk pull's last page builds the listing index only.
        try store.write { tx in try ListingIndexes.create(tx.db) }
        #expect(try store.read { try ListingIndexes.arePresent($0.db) })
        #expect(try !store.read { try $0.hasOrderIndexes() })

        // The next run builds the order indexes, once.
        #expect(try store.write { tx in try tx.buildOrderIndexes() })
        #expect(try store.read { try $0.hasOrderIndexes() })
        #expect(try !store.write { tx in try tx.buildOrderIndexes() })
    }
}
