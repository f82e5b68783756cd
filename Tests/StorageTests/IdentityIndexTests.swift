import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage

/// The records' id index (v8, `IdentityIndex`): a named unique index a first pull of a
/// large collection leaves out while it loads (`BulkLoad`), and that every other writer,
/// and every opening of the store, builds back first.
@Suite("The records' id index and bulk loads")
struct IdentityIndexTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
    }

    private func load(_ page: [RawRecord], into store: ShelfStore, _ bulk: BulkLoad, morePagesFollow: Bool) throws {
        try store.write(bulkLoad: bulk) { tx in try tx.storePulled(page, in: .books, morePagesFollow: morePagesFollow) }
    }

    private func rows(_ store: ShelfStore) throws -> [String] {
        try store.read { reader in
            try reader.db.query("SELECT id || ' ' || json FROM records ORDER BY collection, id", operation: "rows") { $0.text(0) }
        }
    }

    private func schema(_ connection: SQLiteConnection) throws -> [String] {
        try connection.query("SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY name",
                             operation: "read the schema") { $0.text(0) }
    }

    // MARK: - v8

    @Test func v8NamesTheConstraintsIndexAndChangesNothingElse() throws {
        // GIVEN a v7 store holding a book with a waiting edit
        let path = folder.file("v7.sqlite")
        let old = try SQLiteConnection(path: path.path)
        try SchemaMigrator.migrate(old, path: path.path, to: 7)
        try old.execute("""
            INSERT INTO records (collection, id, json, last_modified, sort_key, search_text)
                VALUES ('books', 'b1', '{"id":"b1","title":"Dune"}', 5, 'dune', '');
            INSERT INTO outbox (collection, record_id, kind, base_last_modified, created_at, updated_at)
                VALUES ('books', 'b1', 'update', 5, 0, 0);
            """, operation: "seed v7")
        let before = try schema(old)

        // WHEN it is migrated to v8
        try SchemaMigrator.migrate(old, path: path.path, to: 8)

        // THEN the constraint left the table's text, its index got a name and a
        // definition, and every other line of the schema is as it was
        #expect(try SchemaMigrator.version(of: old) == 8)
        let after = try schema(old)
        let expected = before.compactMap { line -> String? in
            if line.hasPrefix("index sqlite_autoindex_records_1:") { return nil }
            guard line.hasPrefix("table records:") else { return line }
            return line.replacingOccurrences(of: ",\n    UNIQUE (collection, id)", with: "")
        } + ["index records_by_id: CREATE UNIQUE INDEX records_by_id ON records (collection, id)"]
        #expect(after.sorted() == expected.sorted())
        #expect(after.contains { $0.hasPrefix("table records:") && !$0.contains("UNIQUE") })

        // AND on this connection and a new one, the file is sound, ids stay unique,
        // upserts find the index, and the outbox's foreign key still holds
        for connection in [old, try SQLiteConnection(path: path.path)] {
            try connection.execute("PRAGMA foreign_keys = ON", operation: "enforce foreign keys")
            #expect(try connection.query("PRAGMA integrity_check", operation: "check") { $0.text(0) } == ["ok"])
            #expect(throws: StorageError.self) {
                try connection.run(
                    "INSERT INTO records (collection, id, json, sort_key, search_text) VALUES ('books', 'b1', '{}', '', '')",
                    operation: "a second b1")
            }
            try connection.run("""
                INSERT INTO records (collection, id, json, sort_key, search_text) VALUES ('books', 'b1', '{"id":"b1"}', 'b1', '')
                ON CONFLICT (collection, id) DO UPDATE SET sort_key = excluded.sort_key
                """, operation: "upsert b1")
            #expect(throws: StorageError.self) {
                try connection.run(
                    "INSERT INTO outbox (collection, record_id, kind, created_at, updated_at) VALUES ('books', 'nope', 'create', 0, 0)",
                    operation: "an entry without a record")
            }
            let plan = try connection.query(
                "EXPLAIN QUERY PLAN SELECT json FROM records WHERE collection = 'books' AND id = 'b1'", operation: "plan") { $0.text(3) }
            #expect(plan.contains { $0.contains("records_by_id") }, "\(plan)")
        }
    }

    @Test func theConstraintComesOutOfTheTablesTextWithItsComma() {
        let table = "CREATE TABLE records (\n    a TEXT,\n    b TEXT, c INTEGER,\n    UNIQUE (collection, id)\n)"
        #expect(Migration.removingUniqueConstraint(from: table) == "CREATE TABLE records (\n    a TEXT,\n    b TEXT, c INTEGER\n)")
        #expect(Migration.removingUniqueConstraint(from: "CREATE TABLE records (a TEXT)") == nil)
        #expect(Migration.removingUniqueConstraint(from: "CREATE TABLE records (UNIQUE (collection, id))") == nil)
    }

    // MARK: - Bulk loads

    @Test func aFirstPullOfManyPagesLoadsWithoutTheIndexAndBuildsItWithItsLastPage() throws {
        // GIVEN an empty store, and the same books upserted page by page into another
        let store = try ShelfStore.testStore()
        let reference = try ShelfStore.testStore()
        for range in [0..<2000, 2000..<3000, 3000..<3500] { try reference.seed(Wire.books(range), to: .books) }
        let bulk = BulkLoad()

        // WHEN a large first page arrives with more to come
        try load(Wire.books(0..<2000), into: store, bulk, morePagesFollow: true)

        // THEN it went in without the index, and a read by id still finds a book
        #expect(bulk.isLoading)
        #expect(try !IdentityIndexProbe.isPresent(store))
        #expect(try store.read { try $0.record(.books, id: "b1999")?.lastModified } == 2999)

        // WHEN the rest arrives, the last page saying so
        try load(Wire.books(2000..<3000), into: store, bulk, morePagesFollow: true)
        #expect(try !IdentityIndexProbe.isPresent(store))
        try load(Wire.books(3000..<3500), into: store, bulk, morePagesFollow: false)

        // THEN the index is back and the store holds exactly what upserts made
        #expect(!bulk.isLoading)
        #expect(try IdentityIndexProbe.isPresent(store))
        #expect(try rows(store) == rows(reference))
        #expect(try store.read { try $0.integrityCheck() } == ["ok"])
    }

    @Test func aRecordThatComesAgainInALaterPageEndsTheLoadAndTheLaterVersionWins() throws {
        // GIVEN a load under way
        let store = try ShelfStore.testStore()
        let bulk = BulkLoad()
        try load(Wire.books(0..<2000), into: store, bulk, morePagesFollow: true)

        // WHEN a later page brings b5 again, changed on the server during the pull
        var page = Wire.books(2000..<3000)
        page.insert(Wire.remoteBook("b5", title: "Changed", lastModified: 9000), at: 500)
        try load(page, into: store, bulk, morePagesFollow: true)

        // THEN the index was built before b5 went in again: one b5, the later one
        #expect(!bulk.isLoading)
        #expect(try IdentityIndexProbe.isPresent(store))
        let b5 = try store.read { reader in
            try reader.db.query("SELECT last_modified FROM records WHERE id = 'b5'", operation: "b5") { $0.int64(0) }
        }
        #expect(b5 == [9000])
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 3000)

        // AND the pull goes on with upserts
        try load(Wire.books(3000..<4000), into: store, bulk, morePagesFollow: false)
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 4000)
        #expect(try store.read { try $0.integrityCheck() } == ["ok"])
    }

    @Test func aRolledBackPageForgetsItsIdsAndTheLoadGoesOnWhenItComesAgain() throws {
        // GIVEN a load under way, and a page that fails half-way (a record the store refuses)
        let store = try ShelfStore.testStore()
        let bulk = BulkLoad()
        try load(Wire.books(0..<2000), into: store, bulk, morePagesFollow: true)
        var broken = Wire.books(2000..<3000)
        broken.insert(RawRecord(id: "broken", lastModified: 5000, json: Data("[1, 2]".utf8)), at: 600)
        #expect(throws: StorageError.self) {
            try store.write(bulkLoad: bulk) { tx in try tx.storePulled(broken, in: .books, morePagesFollow: true) }
        }
        #expect(bulk.isLoading)

        // WHEN the page comes again, whole
        try load(Wire.books(2000..<3000), into: store, bulk, morePagesFollow: true)

        // THEN its ids were not taken for ones inserted already: the load goes on
        #expect(bulk.isLoading)
        #expect(try !IdentityIndexProbe.isPresent(store))
        try load(Wire.books(3000..<3100), into: store, bulk, morePagesFollow: false)
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 3100)
        #expect(try store.read { try $0.integrityCheck() } == ["ok"])
    }

    @Test func aLoadStartsOnlyWithALargePageIntoAnEmptyCollectionWithNothingWaiting() throws {
        // A small page.
        let small = try ShelfStore.testStore()
        try load(Wire.books(0..<(PulledPageWrite.bulkPageMinimum - 1)), into: small, BulkLoad(), morePagesFollow: true)
        #expect(try IdentityIndexProbe.isPresent(small))

        // A large page that is the only one.
        let only = try ShelfStore.testStore()
        try load(Wire.books(0..<2000), into: only, BulkLoad(), morePagesFollow: false)
        #expect(try IdentityIndexProbe.isPresent(only))

        // A collection that holds a record already (its id could come again).
        let holding = try ShelfStore.testStore()
        try holding.seed([Wire.remoteBook("b1", title: "Old", lastModified: 1)], to: .books)
        try load(Wire.books(0..<2000), into: holding, BulkLoad(), morePagesFollow: true)
        #expect(try IdentityIndexProbe.isPresent(holding))
        #expect(try holding.read { try $0.record(.books, id: "b1")?.lastModified } == 1001)

        // A waiting change in the collection.
        let waiting = try ShelfStore.testStore()
        try waiting.write { tx in try tx.saveLocal(.books, id: "mine", json: Data(#"{"id":"mine","title":"Mine"}"#.utf8)) }
        try load(Wire.books(0..<2000), into: waiting, BulkLoad(), morePagesFollow: true)
        #expect(try IdentityIndexProbe.isPresent(waiting))

        // A page with a tombstone ends a load under way.
        let store = try ShelfStore.testStore()
        let bulk = BulkLoad()
        try load(Wire.books(0..<2000), into: store, bulk, morePagesFollow: true)
        try load(Wire.books(2000..<3000) + [Wire.tombstone("b3", lastModified: 9000)], into: store, bulk, morePagesFollow: true)
        #expect(!bulk.isLoading)
        #expect(try IdentityIndexProbe.isPresent(store))
        #expect(try store.read { try $0.record(.books, id: "b3") } == nil)
    }

    @Test func aStoreLeftWithoutTheIndexByAKilledLoadGetsItBackWhenOpened() throws {
        // GIVEN a file whose load stopped after its first page
        let path = folder.file("killed.sqlite")
        do {
            let store = try ShelfStore(location: .file(path))
            try load(Wire.books(0..<2000), into: store, BulkLoad(), morePagesFollow: true)
            #expect(try !IdentityIndexProbe.isPresent(store))
        }

        // WHEN it is opened again
        let reopened = try ShelfStore(location: .file(path))

        // THEN the index is there, and the pull continues with upserts
        #expect(try IdentityIndexProbe.isPresent(reopened))
        try load(Wire.books(1990..<3000), into: reopened, BulkLoad(), morePagesFollow: false)
        #expect(try reopened.read { try $0.count(RecordQuery(.books)) } == 3000)
        #expect(try reopened.read { try $0.integrityCheck() } == ["ok"])
    }
}
