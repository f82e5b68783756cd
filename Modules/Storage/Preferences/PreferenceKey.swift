import Domain
import Foundation

// MARK: - PreferenceKey

/// The preferences Shelf keeps, each stored as JSON under a fixed key, with the value
/// a first launch sees.
struct PreferenceKey<Value: Codable & Sendable>: Sendable {
    let name: String
    let defaultValue: Value

    /// Book ids, stored sorted so equal sets give equal bytes.
    static var favorites: PreferenceKey<[Book.ID]> { .init(name: "favorites", defaultValue: []) }
    static var readingSettings: PreferenceKey<ReadingSettings> { .init(name: "reading_settings", defaultValue: .default) }
    static var routerPath: PreferenceKey<[Route]> { .init(name: "router_path", defaultValue: []) }
    /// Set once favorites and settings were handed over to the synced `preferences`
    /// collection (`LocalPreferences`).
    static var carriedOver: PreferenceKey<Int> { .init(name: "preferences_synced", defaultValue: 0) }

    func encode(_ value: Value) throws(StorageError) -> Data {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try encoder.encode(value)
        } catch {
            throw .corruptValue(what: "preference \(name)", reason: "cannot encode: \(error)")
        }
    }

    func decode(_ data: Data?) throws(StorageError) -> Value {
        guard let data else { return defaultValue }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw .corruptValue(what: "preference \(name)", reason: "\(error)")
        }
    }
}
