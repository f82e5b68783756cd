import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage

/// Schema v12: the history of the reader's operations (`operations`, `operation_changes`).
@Suite("Schema v12: the history of operations")
struct OperationHistoryMigrationTests {
    /// A v10 store with a synced book and a change waiting migrates with both as they
    /// were and an empty history; the next edit is its first operation.
    @Test func aV10StoreMigratesWithItsWaitingChangesOutsideAnEmptyHistory() throws {
        // GIVEN a v10 store, as v10 wrote it: a book pulled at 7 and edited since
        let folder = try TemporaryDirectory()
        let path = folder.file("v10.sqlite")
        let version = try #require(Schema.migrations.first { $0.summary == "the history of the reader's operations" }?.version)
        do {
            let connection = try SQLiteConnection(path: path.path)
            try SchemaMigrator.migrate(connection, path: path.path, to: version - 1)
            try connection.execute("PRAGMA foreign_keys = ON", operation: "seed v10")
            let key = SearchText.fold("Dune") + SearchText.fieldSeparator + SearchText.fold("Frank Herbert")
            try connection.run(
                "INSERT INTO records (collection, id, json, last_modified, deleted, sort_key, search_text, complete) VALUES ('books', 'b1', ?, 7, 0, ?, '', 0)",
                [.blob(Wire.book("b1", title: "Dune", author: "Frank Herbert")), .text(key)], operation: "seed v10")
            try connection.run(
                "INSERT INTO base_snapshots (collection, id, json, last_modified) VALUES ('books', 'b1', ?, 7)",
                [.blob(Wire.book("b1", title: "Dune (old)", author: "Frank Herbert", lastModified: 7))], operation: "seed v10")
            try connection.run(
                """
                INSERT INTO outbox (collection, record_id, kind, base_last_modified, created_at, updated_at, revision)
                VALUES ('books', 'b1', 'update', 7, 1000, 1000, 1)
                """, operation: "seed v10")
        }

        // WHEN the store opens it
        let store = try ShelfStore(location: .file(path))

        // THEN it is at the current version, the record and its change are as they were, the history empty
        #expect(try SchemaMigrator.version(of: try SQLiteConnection(path: path.path)) == Schema.currentVersion)
        #expect(Schema.migrations.first { $0.version == 12 }?.summary == "the history of the reader's operations")
        #expect(try store.outbox().map(\.kind) == [.update])
        #expect(try store.read { try $0.operations() }.isEmpty)
        #expect(try store.read { try $0.integrityCheck() } == ["ok"])

        // AND the next edit is recorded with the version before it and after it
        try store.edit { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune (1965)", author: "Frank Herbert")) }
        let operations = try store.read { try $0.operations() }
        #expect(operations.map(\.state) == [.done])
        let changes = try store.read { try $0.operationChanges(operations[0].sequence) }
        #expect(changes.count == 1)
        #expect(changes.first?.before == Wire.book("b1", title: "Dune", author: "Frank Herbert"))
        #expect(changes.first?.after == Wire.book("b1", title: "Dune (1965)", author: "Frank Herbert"))
        #expect(changes.first?.outboxSequence == (try store.outbox().first?.sequence))
        #expect(operations.first?.tally == [.books: OperationTally(changed: 1)])
    }

    /// The migration is one self-contained step: run alone on a v10 file it makes exactly
    /// the two tables and their index.
    @Test func theMigrationAddsTheHistoryTablesAndNothingElse() throws {
        // NB: found by what it does, not by its number, which a merge may change.
        let version = try #require(Schema.migrations.first { $0.summary == "the history of the reader's operations" }?.version)
        let connection = try SQLiteConnection(path: ":memory:")
        try SchemaMigrator.migrate(connection, path: ":memory:", to: version - 1)
        let before = Set(try connection.query("SELECT name FROM sqlite_master", operation: "list") { $0.text(0) })
        try SchemaMigrator.migrate(connection, path: ":memory:", to: version)
        let after = Set(try connection.query("SELECT name FROM sqlite_master", operation: "list") { $0.text(0) })
        #expect(after.subtracting(before) == ["operations", "operation_changes", "operation_changes_by_record"])
        #expect(try SchemaMigrator.version(of: connection) == version)
    }
}
