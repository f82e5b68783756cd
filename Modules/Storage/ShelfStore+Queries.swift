import Domain
import Foundation

// MARK: - One-shot queries

/// The reads a screen or a CLI command makes on their own, each in its own read
/// transaction. Use `read { }` to make several against one consistent snapshot.
extension ShelfStore {
    public func record(_ collection: CollectionName, id: String) throws(StorageError) -> StoredRecord? {
        try readTyped { (reader) throws(StorageError) in try reader.record(collection, id: id) }
    }

    public func records(_ query: RecordQuery) throws(StorageError) -> [StoredRecord] {
        try readTyped { (reader) throws(StorageError) in try reader.records(query) }
    }

    public func count(_ query: RecordQuery) throws(StorageError) -> Int {
        try readTyped { (reader) throws(StorageError) in try reader.count(query) }
    }

    public func pendingCount(in collection: CollectionName? = nil) throws(StorageError) -> Int {
        try readTyped { (reader) throws(StorageError) in try reader.pendingCount(in: collection) }
    }

    public func conflictCount() throws(StorageError) -> Int {
        try readTyped { (reader) throws(StorageError) in try reader.conflictCount() }
    }

    public func deadLetterCount() throws(StorageError) -> Int {
        try readTyped { (reader) throws(StorageError) in try reader.deadLetterCount() }
    }
}

// MARK: - SyncStatusProviding

/// The status screen's summary comes straight from the store: it is what the sync
/// engine recorded, and it stays readable while no engine runs (e.g. `shelf status`).
extension ShelfStore: SyncStatusProviding {
    public func syncStatus() throws(StorageError) -> SyncStatus {
        try readTyped { (reader) throws(StorageError) in try reader.syncStatus() }
    }
}
