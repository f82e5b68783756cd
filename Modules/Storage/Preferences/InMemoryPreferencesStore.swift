import Domain
import Synchronization

// MARK: - InMemoryPreferencesStore

/// Preferences that live as long as the value, for tests and previews.
public final class InMemoryPreferencesStore: PreferencesStore {
    private struct Values: Sendable {
        var favorites: Set<Book.ID>
        var readingSettings: ReadingSettings
        var routerPath: [Route]
    }

    private let values: Mutex<Values>

    public init(favorites: Set<Book.ID> = [], readingSettings: ReadingSettings = .default, routerPath: [Route] = []) {
        values = Mutex(Values(favorites: favorites, readingSettings: readingSettings, routerPath: routerPath))
    }

    public func favorites() -> Set<Book.ID> { values.withLock { $0.favorites } }
    public func setFavorites(_ ids: Set<Book.ID>) { values.withLock { $0.favorites = ids } }
    public func readingSettings() -> ReadingSettings { values.withLock { $0.readingSettings } }
    public func setReadingSettings(_ settings: ReadingSettings) { values.withLock { $0.readingSettings = settings } }
    public func routerPath() -> [Route] { values.withLock { $0.routerPath } }
    public func setRouterPath(_ path: [Route]) { values.withLock { $0.routerPath = path } }
}
