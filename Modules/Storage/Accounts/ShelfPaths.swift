import Foundation

// MARK: - ShelfPaths

/// Where Shelf keeps its files, following the XDG base-directory convention:
/// configuration (accounts, the current account) under `$XDG_CONFIG_HOME/shelf`,
/// data (one SQLite store, lock file and health mark per account, and the `keys` folder)
/// under `$XDG_DATA_HOME/shelf`. The one place those folders are worked out: every
/// command, the worker and the store take them from here.
public struct ShelfPaths: Sendable, Equatable {
    public let configDirectory: URL
    public let dataDirectory: URL

    public init(configDirectory: URL, dataDirectory: URL) {
        self.configDirectory = configDirectory
        self.dataDirectory = dataDirectory
    }

    /// Paths from an environment: `$XDG_CONFIG_HOME/shelf` and `$XDG_DATA_HOME/shelf`,
    /// each variable only when it is an absolute path (the spec says to ignore an empty
    /// or relative one), else `~/.config/shelf` and `~/.local/share/shelf`.
    public init(environment: [String: String]) {
        self.init(
            configDirectory: Self.baseDirectory("XDG_CONFIG_HOME", else: ".config", environment: environment)
                .appendingPathComponent("shelf", isDirectory: true),
            dataDirectory: Self.baseDirectory("XDG_DATA_HOME", else: ".local/share", environment: environment)
                .appendingPathComponent("shelf", isDirectory: true))
    }

    /// An XDG base folder: `variable` when it is absolute, else `fallback` under the home
    /// folder — `HOME` when absolute, else the user's home from the password database.
    static func baseDirectory(_ variable: String, else fallback: String, environment: [String: String]) -> URL {
        if let value = environment[variable], value.hasPrefix("/") {
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(fallback, isDirectory: true)
    }

    public var accountsDirectory: URL { configDirectory.appendingPathComponent("accounts") }
    public var configFile: URL { configDirectory.appendingPathComponent("config.json") }

    public func accountFile(_ name: AccountName) -> URL {
        accountsDirectory.appendingPathComponent("\(name.rawValue).json")
    }

    /// The account's SQLite store.
    public func database(_ name: AccountName) -> StoreLocation {
        .file(storeFile(name))
    }

    /// The account's store file, `<data directory>/<account>.sqlite`: the one place its
    /// name is made.
    public func storeFile(_ name: AccountName) -> URL {
        Self.storeFile(name, in: dataDirectory)
    }

    static func storeFile(_ name: AccountName, in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("\(name.rawValue).sqlite", isDirectory: false)
    }

    /// An empty file whose modification time is the last time the account's store
    /// passed SQLite's check (the worker checks again at least daily).
    public func integrityMark(_ name: AccountName) -> URL {
        dataDirectory.appendingPathComponent("\(name.rawValue).checked")
    }

    /// The file the sync runner locks so two runs never work on one store at once.
    public func syncLock(_ name: AccountName) -> URL {
        dataDirectory.appendingPathComponent("\(name.rawValue).lock")
    }

    /// The folder of the accounts' unwrapped encryption keys, `<data directory>/keys`:
    /// a folder of its own, so it can be 0700 whatever the data directory's mode.
    public var keysDirectory: URL { dataDirectory.appendingPathComponent("keys", isDirectory: true) }

    /// The account's keyring file (`LocalKeyStore`), read by every run of an encrypted
    /// account and removed by `shelf encryption lock`.
    public func keyFile(_ name: AccountName) -> URL {
        keysDirectory.appendingPathComponent("\(name.rawValue).key", isDirectory: false)
    }
}
