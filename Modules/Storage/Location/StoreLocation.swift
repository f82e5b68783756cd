import Foundation

// MARK: - StoreLocation

/// Where a store's database lives: one file per account under the XDG data folder,
/// an explicit file, or memory.
public enum StoreLocation: Hashable, Sendable, CustomStringConvertible {
    /// A database file at this path (tests, tools).
    case file(URL)
    /// An SQLite `:memory:` database, gone when the store is released (tests, previews).
    case memory

    /// `$XDG_DATA_HOME/shelf/<account>.sqlite`, or `~/.local/share/shelf/<account>.sqlite`
    /// when `XDG_DATA_HOME` is unset, empty or relative (the XDG spec says to ignore
    /// a relative value).
    public static func account(_ name: AccountName, environment: [String: String] = ProcessInfo.processInfo.environment) -> StoreLocation {
        .file(ShelfPaths.storeFile(name, in: dataDirectory(environment: environment)))
    }

    /// The folder holding every account's database: `$XDG_DATA_HOME/shelf`.
    public static func dataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
                ?? FileManager.default.homeDirectoryForCurrentUser.path
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
        }
        return base.appendingPathComponent("shelf", isDirectory: true)
    }

    /// The path SQLite opens.
    var sqlitePath: String {
        switch self {
        case .file(let url): url.path
        case .memory: ":memory:"
        }
    }

    public var description: String { sqlitePath }
}
