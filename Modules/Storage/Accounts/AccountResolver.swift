import Foundation

// MARK: - AccountSelection

/// Which store a command works on.
public enum AccountSelection: Sendable, Equatable {
    /// An account with a server to sync with.
    case account(ResolvedAccount)
    /// No account configured: local work only, nothing to sync yet.
    case localOnly

    public var name: AccountName {
        switch self {
        case .account(let account): account.name
        case .localOnly: .localOnly
        }
    }
}

// MARK: - AccountResolver

/// Decides the account for a run, with the precedence users expect:
/// `--account NAME` > environment (`SHELF_SERVER`, `SHELF_USER`, `SHELF_PASSWORD` or
/// `SHELF_PASSWORD_FILE`, optional `SHELF_ACCOUNT`) > the current account > local only.
/// `SHELF_CA_FILE`, when set, names the private CA to trust whichever account is chosen.
///
/// Both apps use this one function, so `shelf` and `shelf-sync` given the same flags
/// and environment always open the same store.
public enum AccountResolver {
    /// The store name for an environment-configured account when `SHELF_ACCOUNT` is unset.
    public static let environmentAccountName = "default"

    public static func resolve(
        flag: String?, environment: [String: String], store: AccountStore
    ) throws(AccountConfigError) -> AccountSelection {
        switch try resolveWithoutCA(flag: flag, environment: environment, store: store) {
        case .account(let account):
            let caFile = environment["SHELF_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
            return .account(account.trusting(caFile: caFile))
        case .localOnly:
            return .localOnly
        }
    }

    private static func resolveWithoutCA(
        flag: String?, environment: [String: String], store: AccountStore
    ) throws(AccountConfigError) -> AccountSelection {
        if let flag {
            let name = try AccountName.checked(flag)
            if store.exists(name) { return .account(try store.resolve(name)) }
            if environment["SHELF_SERVER"] != nil { return .account(try fromEnvironment(environment, name: name)) }
            throw .notFound(flag, known: store.list().map(\.rawValue))
        }
        if environment["SHELF_SERVER"] != nil {
            let name = try AccountName.checked(environment["SHELF_ACCOUNT"] ?? environmentAccountName)
            return .account(try fromEnvironment(environment, name: name))
        }
        if let current = store.currentAccount(), store.exists(current) {
            return .account(try store.resolve(current))
        }
        return .localOnly
    }

    /// The account the environment describes, or an error naming what is missing.
    /// The password comes from where `PasswordPrecedence` says (`SHELF_PASSWORD_FILE`,
    /// else `SHELF_PASSWORD`, else the systemd credential `password`); it is read only
    /// when a request needs it.
    public static func fromEnvironment(_ environment: [String: String], name: AccountName) throws(AccountConfigError) -> ResolvedAccount {
        var missing: [String] = []
        let user = environment["SHELF_USER"]
        if user?.isEmpty ?? true { missing.append("SHELF_USER") }
        let password: PasswordSource?
        switch PasswordPrecedence.resolve(.run, environment: environment) {
        case .file(let path, from: .systemdCredential): password = .file(path: path, origin: .systemdCredential)
        case .file(let path, from: _): password = .file(path: path, origin: .environment)
        case .given(let value): password = .given(value, origin: .environment)
        case nil:
            password = nil
            missing.append("SHELF_PASSWORD or SHELF_PASSWORD_FILE")
        }
        guard missing.isEmpty, let user, let password else { throw .incompleteEnvironment(missing: missing) }
        let server = try AccountConfig.normalizedServer(environment["SHELF_SERVER"] ?? "")
        return ResolvedAccount(name: name, server: server, user: user, password: password, source: .environment)
    }
}

// MARK: - Account names from users

extension AccountName {
    /// The store used when no account is configured: local work with nowhere to sync yet.
    public static var localOnly: AccountName {
        // NB: `try!` is safe: "local" is a constant made only of letters, which the name rule accepts.
        try! AccountName("local")
    }

    /// An account name typed by a user, with the configuration error users see.
    public static func checked(_ raw: String) throws(AccountConfigError) -> AccountName {
        do {
            return try AccountName(raw)
        } catch {
            if case .invalidAccountName(_, let reason) = error { throw .invalidName(raw, reason: reason) }
            throw .invalidName(raw, reason: "\(error)")
        }
    }
}
