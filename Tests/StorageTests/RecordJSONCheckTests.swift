import Domain
import Foundation
import Testing
import TestSupport
@testable import Storage

/// Schema v7 drops the records column's `json_valid` CHECK: Shelf validates every record
/// before writing it, and `IntegrityCheck` finds invalid JSON that got in another way.
@Suite("Record JSON: validated on write, checked by the integrity check")
struct RecordJSONCheckTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
    }

    private func schema(_ connection: SQLiteConnection) throws -> [String] {
        try connection.query("SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY name",
                             operation: "read the schema") { $0.text(0) }
    }

    private func insertGarbage(_ connection: SQLiteConnection, id: String) throws {
        try connection.run(
            "INSERT INTO records (collection, id, json, last_modified, deleted, sort_key, search_text) VALUES ('books', ?, ?, 1, 0, '', '')",
            [.text(id), .blob(Data(#"{"id":"\#(id)","tags":[1,,2]}"#.utf8))], operation: "insert garbage")
    }

    @Test func v7DropsTheJSONCheckAndNothingElse() throws {
        // GIVEN a store at v6, whose column refuses invalid JSON
        let path = folder.file("v6.sqlite")
        let old = try SQLiteConnection(path: path.path)
        try SchemaMigrator.migrate(old, path: path.path, to: 6)
        let before = try schema(old)
        #expect(throws: StorageError.self) { try insertGarbage(old, id: "b0") }

        // WHEN it is migrated to v7
        try SchemaMigrator.migrate(old, path: path.path, to: 7)

        // THEN only the records table's text changed, by that one check
        #expect(try SchemaMigrator.version(of: old) == 7)
        let after = try schema(old)
        let expected = before.map { line in
            line.hasPrefix("table records:") ? line.replacingOccurrences(of: " CHECK (json_valid(json))", with: "") : line
        }
        #expect(after == expected)
        #expect(after.contains { $0.hasPrefix("table records:") && $0.contains("CHECK (deleted IN (0, 1))") })
        #expect(!after.contains { $0.contains("json_valid") })

        // AND the other constraints still hold, on this connection and on a new one
        for connection in [old, try SQLiteConnection(path: path.path)] {
            #expect(throws: StorageError.self) {
                try connection.run(
                    "INSERT INTO records (collection, id, json, deleted, sort_key, search_text) VALUES ('books', 'x', '{}', 2, '', '')",
                    operation: "break the deleted check")
            }
        }
        #expect(try old.query("PRAGMA integrity_check", operation: "check") { $0.text(0) } == ["ok"])
    }

    @Test func invalidJSONWrittenAroundShelfIsFoundAtBothDepths() throws {
        // GIVEN a store holding a good book, and a row of invalid JSON written by another tool
        let path = folder.file("store.sqlite")
        let store = try ShelfStore(location: .file(path))
        try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "T", author: "A")) }
        #expect(try store.checkIntegrity(.quick).isHealthy)
        try insertGarbage(try SQLiteConnection(path: path.path), id: "b\u{1B}2")

        // THEN both checks report it, by record, with the id made safe to print
        for depth in [IntegrityReport.Depth.quick, .full] {
            let report = try IntegrityCheck.check(file: path, depth: depth)
            #expect(report.problems == ["record books/b\\u{1B}2: its stored JSON is not valid"], "\(depth)")
        }
        #expect(try !store.checkIntegrity(.quick).isHealthy)
    }

    @Test func shelfItselfStillRefusesInvalidJSON() throws {
        let store = try ShelfStore.testStore()
        #expect(throws: StorageError.self) {
            try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Data(#"{"id":"b1","tags":[1,,2]}"#.utf8)) }
        }
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 0)
    }
}
