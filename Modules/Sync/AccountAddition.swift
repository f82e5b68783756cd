import Domain
import Foundation
import Services
import Storage

// MARK: - AccountAddition

/// Adding an account, the use case behind `shelf account add`: the server and the
/// credentials are checked (after signing the user up, when asked), the account file is
/// written, the server's capabilities are kept, work done before there was any account
/// moves to the new one, and the first account becomes the current one. Nothing is
/// saved when the server or the credentials fail.
///
/// It lives in Sync, not in Repositories, because it asks the server: sign-up and
/// verification are `AccountVerification`'s, over Services' Kinto endpoints, and
/// Repositories may import neither Services nor Sync. Sync, which already owns account
/// verification, is the one module that sees both the server and the account files.
///
/// The person's inputs (where the password comes from, which CA file to trust, whether
/// the network may be used) are the command's to gather; what is done with them is here.
public struct AccountAddition: Sendable {
    /// The account's name, checked and free.
    public let name: AccountName
    /// The server's API root, normalized (`AccountConfig.normalizedServer`).
    public let server: String
    private let accounts: AccountStore

    /// Where the password comes from.
    public enum Password: Sendable {
        /// A file (mode 600) whose path the account keeps: the secret stays where the
        /// operator put it. Read now, so an unsafe, missing or empty file is refused
        /// before anything is written.
        case file(path: String)
        /// Given by the person (the environment, a prompt), kept in the account file (0600).
        case given(String)

        /// The secret (a file is read now: an unsafe, missing or empty one is refused) and
        /// the account file that keeps it: the file's path, or the password itself.
        func account(server: String, user: String, caFile: String?) throws(AccountConfigError) -> (secret: String, config: AccountConfig) {
            switch self {
            case .file(let path):
                (try SecretFile.read(path), try AccountConfig(server: server, user: user, passwordFile: path, caFile: caFile))
            case .given(let given):
                (given, try AccountConfig(server: server, user: user, password: given, caFile: caFile))
            }
        }
    }

    /// What is asked of the server before saving.
    public enum Verification: Sendable {
        /// Nothing: saved as given (`--no-verify`, offline).
        case none
        /// The server and the credentials are checked.
        case verify
        /// The user is signed up first (Kinto's accounts plugin), then checked.
        case signUpAndVerify
    }

    /// What the person is told along the way, as it happens.
    public enum Notice: Sendable, Equatable {
        /// Printed whatever the verbosity (plain http:// to another machine, a server
        /// that accepts any password).
        case warning(String)
        /// A `--verbose` note.
        case note(String)
    }

    /// The account as saved.
    public struct Added: Sendable, Equatable {
        public let name: AccountName
        public let user: String
        public let server: String
        public let isCurrent: Bool
        /// The local-only work that moved to the new account, if there was any.
        public let adopted: LocalStoreAdoption.Adopted?
    }

    /// Checks the name (and that no account has it) and the server's URL.
    /// - Throws: `AccountConfigError`: an invalid or taken name, a URL Shelf cannot use.
    public init(name: String, server: String, accounts: AccountStore) throws(AccountConfigError) {
        let name = try AccountName.checked(name)
        guard !accounts.exists(name) else { throw .alreadyExists(name.rawValue) }
        self.name = name
        self.server = try AccountConfig.normalizedServer(server)
        self.accounts = accounts
    }

    /// Verifies (or signs up), then saves the account.
    /// - Parameters:
    ///   - caFile: an absolute path to a PEM file of CAs to trust for the server.
    ///   - notify: told each warning and note when it arises, before what follows can fail.
    /// - Throws: `AccountConfigError` or `StorageError` for the files,
    ///   `AccountVerificationError` for the server (its `exitStatus` says which).
    public func add(
        user: String, password: Password, caFile: String?, verification: Verification,
        timeouts: Timeouts = AccountVerification.defaultTimeouts, notify: @Sendable (Notice) -> Void
    ) async throws -> Added {
        let (secret, config) = try password.account(server: server, user: user, caFile: caFile)
        if let warning = AccountVerification.cleartextWarning(server: server) { notify(.warning(warning)) }

        var capabilities: ServerCapabilities?
        if verification != .none {
            let verifying = AccountVerification(
                server: server, credentials: Credentials(user: user, password: secret), caFile: caFile, timeouts: timeouts)
            if verification == .signUpAndVerify, try await verifying.signUp() == .alreadyExists {
                notify(.note("user \(user) already has an account on \(server); checking its password"))
            }
            let verified: VerifiedServer
            do {
                verified = try await verifying.verify()
            } catch {
                // NB: Kinto answers an unknown user as it answers a wrong password (401).
                guard case .credentialsRefused(let user, let server, _) = error, verification == .verify else { throw error }
                throw AccountVerificationError.credentialsRefused(user: user, server: server, then: .accountNotAddedMaybeNewUser)
            }
            for warning in verified.warnings { notify(.warning(warning)) }
            notify(.note("verified \(server): Kinto API \(verified.capabilities.httpAPIVersion), user id \(verified.userID)"))
            capabilities = verified.capabilities
        }
        try accounts.add(name, config)
        if let capabilities {
            // A cache: a failed write only costs the first sync one more request.
            try? ServerCapabilitiesCache(paths: accounts.paths).save(capabilities, for: name, server: server)
        }
        let adopted = try LocalStoreAdoption.adopt(into: name, paths: accounts.paths)

        let current = accounts.currentAccount()
        if current == nil || !accounts.exists(current ?? name) { try accounts.setCurrentAccount(name) }
        return Added(name: name, user: user, server: server, isCurrent: accounts.currentAccount() == name, adopted: adopted)
    }
}
