import Foundation

// MARK: - ShelfPaths

/// Where Shelf keeps its files, following the XDG base-directory convention:
/// configuration (accounts, the current account) under `$XDG_CONFIG_HOME/shelf`,
/// data (one SQLite store and one lock file per account) under `$XDG_DATA_HOME/shelf`.
public struct ShelfPaths: Sendable, Equatable {
    public let configDirectory: URL
    public let dataDirectory: URL

    public init(configDirectory: URL, dataDirectory: URL) {
        self.configDirectory = configDirectory
        self.dataDirectory = dataDirectory
    }

    /// Paths from an environment: `XDG_CONFIG_HOME` when set to an absolute path (the
    /// spec says relative ones are ignored), else `~/.config`; data as `StoreLocation` says.
    public init(environment: [String: String]) {
        let configBase: URL
        if let value = environment["XDG_CONFIG_HOME"], value.hasPrefix("/") {
            configBase = URL(fileURLWithPath: value, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
                ?? FileManager.default.homeDirectoryForCurrentUser.path
            configBase = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".config", isDirectory: true)
        }
        self.init(
            configDirectory: configBase.appendingPathComponent("shelf", isDirectory: true),
            dataDirectory: StoreLocation.dataDirectory(environment: environment))
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
