import Foundation

// MARK: - AccountStore

/// The account files under `$XDG_CONFIG_HOME/shelf/accounts/` and the current account
/// in `$XDG_CONFIG_HOME/shelf/config.json`. Account files are written 0600 in a 0700
/// folder, atomically, and refused on read when group or others can access them.
public struct AccountStore: Sendable {
    public let paths: ShelfPaths

    public init(paths: ShelfPaths) {
        self.paths = paths
    }

    // MARK: Accounts

    public func list() -> [AccountName] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: paths.accountsDirectory.path)) ?? []
        return names.compactMap { file -> AccountName? in
            guard file.hasSuffix(".json") else { return nil }
            return try? AccountName(String(file.dropLast(5)))
        }.sorted { $0.rawValue < $1.rawValue }
    }

    public func exists(_ name: AccountName) -> Bool {
        FileManager.default.fileExists(atPath: paths.accountFile(name).path)
    }

    /// The account file, refused unless it is private (0600).
    public func load(_ name: AccountName) throws(AccountConfigError) -> AccountConfig {
        try load(name, allowingLoose: false)
    }

    /// - Parameter allowingLoose: read it even when group or others may access it (the
    ///   caller then trusts nothing in it with the server).
    private func load(_ name: AccountName, allowingLoose: Bool) throws(AccountConfigError) -> AccountConfig {
        let path = paths.accountFile(name).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw .notFound(name.rawValue, known: list().map(\.rawValue))
        }
        do {
            try SecretFile.requirePrivate(path)
        } catch .unsafePermissions(let path, let mode) {
            if !allowingLoose { throw .unsafePermissions(path: path, mode: mode) }
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: "permission denied")
        }
        do {
            let config = try JSONDecoder().decode(AccountConfig.self, from: data)
            // Re-validate what a hand-edited file may have broken.
            return try AccountConfig(server: config.server, user: config.user,
                                     passwordFile: config.passwordFile, password: config.password, caFile: config.caFile)
        } catch let error as AccountConfigError {
            throw error
        } catch {
            throw .invalidFile(path: path, reason: Self.describe(error))
        }
    }

    /// Writes a new account file. An existing account is not overwritten.
    public func add(_ name: AccountName, _ config: AccountConfig) throws(AccountConfigError) {
        guard !exists(name) else { throw .alreadyExists(name.rawValue) }
        try save(name, config)
    }

    public func remove(_ name: AccountName) throws(AccountConfigError) {
        guard exists(name) else { throw .notFound(name.rawValue, known: list().map(\.rawValue)) }
        do {
            try FileManager.default.removeItem(at: paths.accountFile(name))
        } catch {
            throw .unreadable(path: paths.accountFile(name).path, reason: error.localizedDescription)
        }
        if currentAccount() == name { try setCurrentAccount(nil) }
    }

    /// The account, with where its password is: the password itself is not read here
    /// (`ResolvedAccount.credentials()` reads it when a request needs it), so a missing
    /// or loose password file never keeps the reader from their local store.
    ///
    /// An account file that group or others may access (a backup restored at 0644) still
    /// names the store, but nothing in it is trusted with the server: someone else may
    /// have written its server or read its password. Its password is unusable until the
    /// file is private again, and the first request says so.
    public func resolve(_ name: AccountName) throws(AccountConfigError) -> ResolvedAccount {
        let config = try load(name, allowingLoose: true)
        let accountFile = paths.accountFile(name).path
        var looseMode: String?
        do {
            try SecretFile.requirePrivate(accountFile)
        } catch .unsafePermissions(_, let mode) {
            looseMode = mode
        }
        let password: PasswordSource
        if let looseMode {
            password = .unusable(PasswordProblem(origin: .accountFile(name), path: accountFile, kind: .notPrivate(mode: looseMode), file: .account))
        } else if let file = config.passwordFile {
            password = .file(path: file, origin: .accountFile(name))
        } else if let stored = config.password {
            password = .given(stored, origin: .accountFile(name))
        } else {
            throw .invalidFile(path: paths.accountFile(name).path, reason: "no password or password_file")
        }
        return ResolvedAccount(
            name: name, server: config.server, user: config.user, password: password, source: .accountFile, caFile: config.caFile)
    }

    /// Replaces an existing account's file (a new password, say), atomically.
    public func replace(_ name: AccountName, _ config: AccountConfig) throws(AccountConfigError) {
        guard exists(name) else { throw .notFound(name.rawValue, known: list().map(\.rawValue)) }
        try save(name, config)
    }

    // MARK: Current account

    private struct Settings: Codable {
        var currentAccount: String?
        enum CodingKeys: String, CodingKey { case currentAccount = "current_account" }
    }

    public func currentAccount() -> AccountName? {
        guard let data = FileManager.default.contents(atPath: paths.configFile.path),
              let settings = try? JSONDecoder().decode(Settings.self, from: data),
              let raw = settings.currentAccount
        else { return nil }
        return try? AccountName(raw)
    }

    public func setCurrentAccount(_ name: AccountName?) throws(AccountConfigError) {
        if let name, !exists(name) { throw .notFound(name.rawValue, known: list().map(\.rawValue)) }
        try write(Settings(currentAccount: name?.rawValue), to: paths.configFile)
    }

    // MARK: Helpers

    private func save(_ name: AccountName, _ config: AccountConfig) throws(AccountConfigError) {
        try write(config, to: paths.accountFile(name))
    }

    private func write<T: Encodable>(_ value: T, to url: URL) throws(AccountConfigError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(value) } catch {
            throw .invalidFile(path: url.path, reason: error.localizedDescription)
        }
        try SecretFile.ensurePrivateDirectory(paths.configDirectory)
        try SecretFile.writeAtomically(data + Data("\n".utf8), to: url)
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): return "missing '\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        case .dataCorrupted: return "not JSON"
        default: return "\(error)"
        }
    }
}
