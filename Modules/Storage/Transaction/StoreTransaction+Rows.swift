import Domain
import Foundation
import Records

// MARK: - Row writes

extension StoreTransaction {
    /// Writes a row as it is given (insert or replace), with its search and sort columns.
    public func writeRecord(
        _ collection: CollectionName, id: String, json: Data, lastModified: Int64?, deleted: Bool
    ) throws(StorageError) {
        let indexing = try indexing(collection, id: id, json: json, requireID: false)
        try writeRecord(
            collection, id: id, json: json, lastModified: lastModified, deleted: deleted, indexing: indexing,
            operation: "write \(collection.rawValue) record")
    }

    func writeRecord(
        _ collection: CollectionName, id: String, json: Data, lastModified: Int64?, deleted: Bool,
        indexing: RecordIndexing, operation: @autoclosure () -> String
    ) throws(StorageError) {
        try db.run("""
            INSERT INTO records (collection, id, json, last_modified, deleted, sort_key, search_text, complete)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (collection, id) DO UPDATE SET
                json = excluded.json, last_modified = excluded.last_modified, deleted = excluded.deleted,
                sort_key = excluded.sort_key, search_text = excluded.search_text, complete = excluded.complete
            """,
            [
                .text(collection.rawValue), .text(id), .blob(json), .integer(lastModified), .bool(deleted),
                .text(indexing.sortKey), .text(indexing.storedSearchText(collection)), .bool(indexing.complete),
            ],
            operation: operation()
        )
    }

    /// Inserts a record the store does not have, without looking for one with its id:
    /// a bulk load's insert (`BulkLoad`), made while the id index is out.
    func insertRecord(
        _ collection: CollectionName, id: String, json: Data, lastModified: Int64?, indexing: RecordIndexing,
        operation: @autoclosure () -> String
    ) throws(StorageError) {
        try db.run("""
            INSERT INTO records (collection, id, json, last_modified, deleted, sort_key, search_text, complete)
            VALUES (?, ?, ?, ?, 0, ?, ?, ?)
            """,
            [
                .text(collection.rawValue), .text(id), .blob(json), .integer(lastModified),
                .text(indexing.sortKey), .text(indexing.storedSearchText(collection)), .bool(indexing.complete),
            ],
            operation: operation()
        )
    }

    func markDeleted(_ collection: CollectionName, id: String) throws(StorageError) {
        try db.run(
            "UPDATE records SET deleted = 1 WHERE collection = ? AND id = ?",
            [.text(collection.rawValue), .text(id)], operation: "mark \(collection.rawValue) record deleted"
        )
    }

    /// Removes a row and its base snapshot.
    public func removeRecord(_ collection: CollectionName, id: String) throws(StorageError) {
        try db.run(
            "DELETE FROM base_snapshots WHERE collection = ? AND id = ?",
            [.text(collection.rawValue), .text(id)], operation: "remove base snapshot"
        )
        try db.run(
            "DELETE FROM records WHERE collection = ? AND id = ?",
            [.text(collection.rawValue), .text(id)], operation: "remove \(collection.rawValue) record"
        )
    }

    public func writeBase(_ base: BaseSnapshot) throws(StorageError) {
        try db.run(
            "INSERT OR REPLACE INTO base_snapshots (collection, id, json, last_modified) VALUES (?, ?, ?, ?)",
            [.text(base.collection.rawValue), .text(base.recordID), .blob(base.json), .integer(base.lastModified)],
            operation: "write base snapshot"
        )
    }

    public func removeBase(_ collection: CollectionName, id: String) throws(StorageError) {
        try db.run(
            "DELETE FROM base_snapshots WHERE collection = ? AND id = ?",
            [.text(collection.rawValue), .text(id)], operation: "remove base snapshot"
        )
    }

    /// Sets the server version a row is based on.
    public func setLastModified(_ collection: CollectionName, id: String, _ lastModified: Int64?) throws(StorageError) {
        try db.run(
            "UPDATE records SET last_modified = ? WHERE collection = ? AND id = ?",
            [.integer(lastModified), .text(collection.rawValue), .text(id)],
            operation: "update \(collection.rawValue) record timestamp"
        )
    }
}
