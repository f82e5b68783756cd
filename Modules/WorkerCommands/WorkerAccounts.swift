import Foundation
import Storage

// MARK: - WorkerAccount

/// One account a worker run is asked to sync: ready, or broken with the reason, so a
/// broken account is reported on its own while the others sync.
public enum WorkerAccount: Sendable, Equatable {
    case ready(ResolvedAccount)
    /// The account's configuration is unusable (an unreadable account file, a bad server
    /// URL): its run is a `.configurationError`. A password that cannot be read is found
    /// when the run asks for it (`AccountSync.credentialProblem`), with the same outcome.
    case broken(name: String, reason: String)

    public var name: String {
        switch self {
        case .ready(let account): account.name.rawValue
        case .broken(let name, _): name
        }
    }
}

// MARK: - WorkerAccounts

/// Which accounts a worker run syncs: `--all-accounts` (every account file), `--account
/// NAME`, or what `AccountResolver` picks (the environment's, else the current one).
public enum WorkerAccounts {
    /// - Throws: `WorkerConfigurationError` only when there is no account at all; an
    ///   account that exists but cannot be used comes back as `.broken`.
    public static func select(
        account flag: String?, allAccounts: Bool, environment: [String: String], paths: ShelfPaths
    ) throws(WorkerConfigurationError) -> [WorkerAccount] {
        let store = AccountStore(paths: paths)
        if allAccounts {
            let names = store.list()
            guard !names.isEmpty else { throw .noAccountFiles(paths.accountsDirectory.path) }
            // `SHELF_CA_FILE`, given for this run, is the CA every account trusts.
            let caFile = environment["SHELF_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
            return names.map { name in
                do {
                    return .ready(try store.resolve(name).trusting(caFile: caFile))
                } catch {
                    return .broken(name: name.rawValue, reason: "\(error)")
                }
            }
        }
        do {
            switch try AccountResolver.resolve(flag: flag, environment: environment, store: store) {
            case .account(let account): return [.ready(account)]
            case .localOnly: throw WorkerConfigurationError.noAccount
            }
        } catch let error as WorkerConfigurationError {
            throw error
        } catch {
            let name = flag ?? environment["SHELF_ACCOUNT"] ?? (environment["SHELF_SERVER"] != nil
                ? AccountResolver.environmentAccountName : store.currentAccount()?.rawValue ?? "(current)")
            return [.broken(name: name, reason: "\(error)")]
        }
    }
}

// MARK: - WorkerConfigurationError

/// Nothing to sync at all: the run ends with status 78 before any account is touched.
public enum WorkerConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case noAccount
    case noAccountFiles(String)

    public var description: String {
        switch self {
        case .noAccount:
            "no account configured: set SHELF_SERVER, SHELF_USER and SHELF_PASSWORD (or SHELF_PASSWORD_FILE), or add one with 'shelf account add'"
        case .noAccountFiles(let folder):
            "no account configured: --all-accounts found no account files in \(folder); add one with 'shelf account add'"
        }
    }
}
