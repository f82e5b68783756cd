import Domain
import Foundation
import Testing
import TestSupport
@testable import Storage

@Suite("Schema migrations")
struct MigrationTests {
    @Test func anEmptyFileIsCreatedAtTheCurrentVersion() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("new.sqlite")

        _ = try ShelfStore(location: .file(path))

        let connection = try SQLiteConnection(path: path.path)
        #expect(try SchemaMigrator.version(of: connection) == Schema.currentVersion)
        #expect(Schema.currentVersion >= 2)
    }

    @Test func aFileOfEveryEarlierVersionIsMigratedKeepingItsData() throws {
        for version in 1..<Schema.currentVersion {
            // GIVEN a file built by the migrations up to `version`, holding a book, a
            // pending task edit and a preference, written with that version's columns
            let folder = try TemporaryDirectory()
            let path = folder.file("v\(version).sqlite")
            do {
                let connection = try SQLiteConnection(path: path.path)
                try SchemaMigrator.migrate(connection, path: path.path, to: version)
                #expect(try SchemaMigrator.version(of: connection) == version)
                // From v2 on, rows carry `complete` as that version's writes filled it.
                let completeColumn = version >= 2 ? ", complete" : ""
                let completeValue = { (flag: Bool) in version >= 2 ? ", \(flag ? 1 : 0)" : "" }
                try connection.run(
                    "INSERT INTO records (collection, id, json, last_modified, deleted, sort_key, search_text\(completeColumn)) VALUES (?, ?, ?, ?, 0, ?, ?\(completeValue(true)))",
                    [.text("books"), .text("b1"), .blob(Wire.book("b1", title: "Café Society", author: "Émile Zola", finished: true, lastModified: 5)),
                     .integer(5), .text("cafe society\u{1F}emile zola"), .text("cafe society\u{1F}emile zola")],
                    operation: "seed v\(version)"
                )
                try connection.run(
                    "INSERT INTO records (collection, id, json, last_modified, deleted, sort_key, search_text\(completeColumn)) VALUES (?, ?, ?, NULL, 0, ?, ?\(completeValue(false)))",
                    [.text("tasks"), .text("t1"), .blob(Wire.task("t1", title: "Read", done: false)), .text("read"), .text("read")],
                    operation: "seed v\(version)"
                )
                try connection.run(
                    "INSERT INTO outbox (collection, record_id, kind, base_last_modified, created_at, updated_at) VALUES ('tasks', 't1', 'create', NULL, 1, 1)",
                    operation: "seed v\(version)"
                )
                try connection.run("INSERT INTO preferences (key, value) VALUES ('favorites', ?)", [.blob(Data(#"["b1"]"#.utf8))], operation: "seed")
            }

            // WHEN the store opens it
            let store = try ShelfStore(location: .file(path))

            // THEN it is at the current version, the data is there and the new columns are filled
            let connection = try SQLiteConnection(path: path.path)
            #expect(try SchemaMigrator.version(of: connection) == Schema.currentVersion)
            let (book, finished, unfinishedTasks, pending) = try store.read { reader in
                (try reader.record(.books, id: "b1"),
                 try reader.count(RecordQuery(.books, complete: true)),
                 try reader.count(RecordQuery(.tasks, complete: false)),
                 try reader.pendingCount())
            }
            #expect(book?.lastModified == 5)
            #expect(finished == 1, "v2 backfills `complete` from the JSON; later files keep theirs")
            let (byAuthor, byTitle, indexes) = try store.read { reader in
                (try reader.count(RecordQuery(.books, search: "zola")),
                 try reader.records(RecordQuery(.tasks, search: "READ")).map(\.id),
                 try reader.db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'records_%' ORDER BY name",
                                     operation: "list indexes") { $0.text(0) })
            }
            #expect(byAuthor == 1, "searches find what earlier versions stored")
            #expect(byTitle == ["t1"])
            #expect(indexes == ["records_by_completion", "records_by_id", "records_by_second_field", "records_listing"],
                    "v3 keeps one listing index; v8 names the id index; v10 adds one per order")
            #expect(unfinishedTasks == 1)
            #expect(pending == 1)
            #expect(try SQLitePreferencesStore(store: store).favorites() == ["b1"])
            #expect(try store.read { try $0.integrityCheck() } == ["ok"])
        }
    }

    @Test func aFileFromANewerShelfIsRefusedAndLeftUntouched() throws {
        // GIVEN a database whose user_version is ahead of this build
        let folder = try TemporaryDirectory()
        let path = folder.file("future.sqlite")
        do {
            let connection = try SQLiteConnection(path: path.path)
            try connection.execute("""
                CREATE TABLE future (x TEXT);
                INSERT INTO future VALUES ('kept');
                PRAGMA user_version = \(Schema.currentVersion + 1);
                """, operation: "create future file")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path.path)
        let before = try Data(contentsOf: path)
        let attributesBefore = try FileManager.default.attributesOfItem(atPath: path.path)

        // WHEN the store opens it
        #expect(throws: StorageError.newerSchema(path: path.path, found: Schema.currentVersion + 1, supported: Schema.currentVersion)) {
            try ShelfStore(location: .file(path))
        }

        // THEN the file is byte for byte (and mode for mode) as it was, and no journal stays behind
        #expect(try Data(contentsOf: path) == before)
        let attributesAfter = try FileManager.default.attributesOfItem(atPath: path.path)
        #expect(attributesAfter[.posixPermissions] as? Int == attributesBefore[.posixPermissions] as? Int)
        #expect(!FileManager.default.fileExists(atPath: path.path + "-wal"))
    }

    @Test func theRefusalMessageSaysWhatToDo() {
        let error = StorageError.newerSchema(path: "/x/a.sqlite", found: 9, supported: 2)
        #expect(error.description.contains("version 9"))
        #expect(error.description.contains("untouched"))
    }

    @Test func reopeningACurrentFileChangesNothing() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("same.sqlite")
        do {
            let store = try ShelfStore(location: .file(path))
            try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune", author: "Frank Herbert")) }
        }
        let store = try ShelfStore(location: .file(path))
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 1)
        #expect(try store.outbox().map(\.kind) == [.create])
    }

    @Test func aFileThatIsNotADatabaseIsReportedAsSQLiteError() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("garbage.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: path)
        do {
            _ = try ShelfStore(location: .file(path))
            Issue.record("opening garbage should fail")
        } catch {
            #expect(error.sqliteCode == 26 /* SQLITE_NOTADB */)
        }
    }
}
