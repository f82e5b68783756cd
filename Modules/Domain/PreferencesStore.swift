// MARK: - PreferencesStore (port)

/// Where the reader's small preferences live between launches: favorites, reading
/// settings and the router path — the Linux counterpart of the seed apps' UserDefaults.
///
/// Declared here so view models depend on the port; Storage implements it over SQLite
/// and offers an in-memory variant for tests and previews.
public protocol PreferencesStore: Sendable {
    func favorites() throws -> Set<Book.ID>
    func setFavorites(_ ids: Set<Book.ID>) throws
    func readingSettings() throws -> ReadingSettings
    func setReadingSettings(_ settings: ReadingSettings) throws
    func routerPath() throws -> [Route]
    func setRouterPath(_ path: [Route]) throws
}
