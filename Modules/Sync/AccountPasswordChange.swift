import Domain
import Foundation
import Services
import Storage

// MARK: - AccountPasswordChange

/// Giving an account a new password, the use case behind `shelf account password`: the
/// server is asked whether it accepts the new password for the account's user
/// (`AccountVerification`, as `account add` asks) before the account file is rewritten,
/// so a typo never replaces a password that worked. Nothing else in the account changes.
///
/// The mend for a password file that went missing or changed mode, and for a password
/// changed on the server: `PasswordProblem` points here.
public struct AccountPasswordChange: Sendable {
    public let name: AccountName
    /// The account as it is now.
    public let config: AccountConfig
    private let accounts: AccountStore

    /// The account as changed.
    public struct Changed: Sendable, Equatable {
        public let name: AccountName
        public let user: String
        public let server: String
        /// Where the password is kept now (`PasswordSource.description`'s words).
        public let kept: String
        /// Whether the server was asked (false with `--no-verify` or offline).
        public let verified: Bool
    }

    /// Loads the account whose password changes.
    /// - Throws: `AccountConfigError`: no such account, or its file cannot be read.
    public init(name: AccountName, accounts: AccountStore) throws(AccountConfigError) {
        self.name = name
        self.accounts = accounts
        config = try accounts.load(name)
    }

    /// Checks the new password with the server (unless `verifies` is false), then
    /// rewrites the account file with it.
    /// - Parameters:
    ///   - password: a file (its path is kept) or the password itself (kept in the 0600 account file).
    ///   - transport: nil for the shared libcurl transport (trusting the account's CA file).
    /// - Throws: `AccountConfigError` for the files (an unsafe, missing or empty password
    ///   file is refused before the server is asked), `AccountVerificationError` for the
    ///   server: a refused password exits 77 and changes nothing.
    public func change(
        to password: AccountAddition.Password, verifies: Bool, transport: (any HTTPTransport)? = nil,
        timeouts: Timeouts = AccountVerification.defaultTimeouts, notify: @Sendable (AccountAddition.Notice) -> Void
    ) async throws -> Changed {
        let (secret, updated) = try password.account(server: config.server, user: config.user, caFile: config.caFile)
        if verifies {
            let verifying = AccountVerification(
                server: config.server, credentials: Credentials(user: config.user, password: secret), caFile: config.caFile,
                transport: transport, timeouts: timeouts)
            do {
                let verified = try await verifying.verify()
                for warning in verified.warnings { notify(.warning(warning)) }
                notify(.note("verified \(config.server): user id \(verified.userID)"))
            } catch {
                guard case .credentialsRefused(let user, let server, _) = error else { throw error }
                throw AccountVerificationError.credentialsRefused(user: user, server: server, then: .passwordNotChanged)
            }
        }
        try accounts.replace(name, updated)
        let kept = updated.passwordFile.map { "in \($0)" } ?? "in the account file"
        return Changed(name: name, user: config.user, server: config.server, kept: kept, verified: verifies)
    }
}
