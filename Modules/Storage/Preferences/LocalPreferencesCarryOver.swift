import Domain
import Foundation

// MARK: - Carrying local preferences into the synced collection

/// Favorites and reading settings used to live only in this store's `preferences`
/// table; they now sync as the `preferences` collection. What a reader set before that
/// change is handed over once: `takeLocalPreferencesForSync` returns it and, in the same
/// transaction, removes it from the table and marks the hand-over done, so the caller
/// writes it into the synced record in that transaction — a kill at any point either
/// hands everything over or nothing.
///
/// The router path stays in the table: where a device was is that device's own.
public struct LocalPreferences: Hashable, Sendable {
    public var favorites: Set<Book.ID>
    /// Nil when the reader never changed the settings on this device (the defaults are
    /// not written, so they never override another device's choice).
    public var settings: ReadingSettings?
}

extension StoreReader {
    /// Whether this store still holds favorites or settings from before they synced.
    public func hasLocalPreferencesToCarryOver() throws(StorageError) -> Bool {
        try preference(PreferenceKey<Int>.carriedOver.name) == nil
    }
}

extension StoreTransaction {
    /// The favorites and settings kept before they synced, once: nil when they were
    /// handed over already (or there never were any, on a store made by this Shelf).
    ///
    /// A value that no longer decodes (damaged, or from a newer Shelf) is not handed
    /// over and stays in the table as it was, so nothing is lost and it does not block
    /// the rest.
    public func takeLocalPreferencesForSync() throws(StorageError) -> LocalPreferences? {
        guard try hasLocalPreferencesToCarryOver() else { return nil }
        let favoritesKey = PreferenceKey<[Book.ID]>.favorites, settingsKey = PreferenceKey<ReadingSettings>.readingSettings
        let favoritesData = try preference(favoritesKey.name)
        let settingsData = try preference(settingsKey.name)
        let favorites = try? favoritesKey.decode(favoritesData)
        let settings = try? settingsData.map { (data) throws(StorageError) in try settingsKey.decode(data) }
        if favorites != nil { try removePreference(favoritesKey.name) }
        if settings != nil { try removePreference(settingsKey.name) }
        try setPreference(PreferenceKey<Int>.carriedOver.name, Data("1".utf8))
        let handed = LocalPreferences(favorites: Set(favorites ?? []), settings: settings ?? nil)
        return handed.favorites.isEmpty && handed.settings == nil ? nil : handed
    }

    private func removePreference(_ key: String) throws(StorageError) {
        try db.run("DELETE FROM preferences WHERE key = ?", [.text(key)], operation: "hand over preference \(key)")
    }
}
