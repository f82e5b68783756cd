import Foundation

// MARK: - StoreLocation

/// Where a store's database lives: a file (an account's is `ShelfPaths.database`), or
/// memory.
public enum StoreLocation: Hashable, Sendable, CustomStringConvertible {
    /// A database file at this path (tests, tools).
    case file(URL)
    /// An SQLite `:memory:` database, gone when the store is released (tests, previews).
    case memory

    /// The path SQLite opens.
    var sqlitePath: String {
        switch self {
        case .file(let url): url.path
        case .memory: ":memory:"
        }
    }

    public var description: String { sqlitePath }
}
