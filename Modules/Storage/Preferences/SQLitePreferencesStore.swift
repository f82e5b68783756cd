import Domain
import Foundation

// MARK: - SQLitePreferencesStore

/// The reader's preferences in the account's database, next to the data they refer to
/// (favorites are book ids of that account).
///
/// Values are JSON; one that no longer decodes (written by a newer Shelf, or damaged)
/// is reported as `StorageError.corruptValue`, never silently replaced by the default.
public struct SQLitePreferencesStore: PreferencesStore {
    private let store: ShelfStore

    public init(store: ShelfStore) {
        self.store = store
    }

    public func favorites() throws -> Set<Book.ID> {
        Set(try value(.favorites))
    }

    public func setFavorites(_ ids: Set<Book.ID>) throws {
        try setValue(ids.sorted(), for: .favorites)
    }

    public func readingSettings() throws -> ReadingSettings {
        try value(.readingSettings)
    }

    public func setReadingSettings(_ settings: ReadingSettings) throws {
        try setValue(settings, for: .readingSettings)
    }

    public func routerPath() throws -> [Route] {
        try value(.routerPath)
    }

    public func setRouterPath(_ path: [Route]) throws {
        try setValue(path, for: .routerPath)
    }

    // MARK: Storage

    private func value<Value>(_ key: PreferenceKey<Value>) throws(StorageError) -> Value {
        let data = try store.readTyped { (reader) throws(StorageError) in try reader.preference(key.name) }
        return try key.decode(data)
    }

    private func setValue<Value>(_ value: Value, for key: PreferenceKey<Value>) throws(StorageError) {
        let data = try key.encode(value)
        try store.writeTyped { (transaction) throws(StorageError) in try transaction.setPreference(key.name, data) }
    }
}
