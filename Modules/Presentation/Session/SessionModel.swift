import Domain
import Observation

// MARK: - SessionModel

/// The account the reader works in and that account's feature models.
///
/// Switching accounts builds a fresh `AccountModels` from the new account's
/// dependencies and cancels everything the old models had in flight, so work started
/// for one account never shows up under another: the old models drop their results,
/// and the new models never saw the old requests.
@MainActor
@Observable
public final class SessionModel {
    /// Builds the dependencies of an account (its store, its server credentials).
    public typealias DependenciesFactory = @MainActor (AccountID) throws -> AccountDependencies

    // MARK: State

    /// The current account's models; replaced (new identity) on every account switch.
    public private(set) var models: AccountModels
    /// Why the last switch failed; the session then stays on the account it had.
    public private(set) var errorMessage: String?

    public var account: AccountID { models.account }

    // MARK: Dependencies

    @ObservationIgnored private let makeDependencies: DependenciesFactory

    /// - Throws: whatever `makeDependencies` throws for the first account.
    public init(account: AccountID, makeDependencies: @escaping DependenciesFactory) throws {
        self.makeDependencies = makeDependencies
        models = AccountModels(account: account, dependencies: try makeDependencies(account))
    }

    // MARK: Intents

    /// Moves the session to another account with new models. Switching to the current
    /// account changes nothing.
    /// - Returns: whether the session is on `account` afterwards; when its
    ///   dependencies cannot be built, `errorMessage` says why and the old account stays.
    @discardableResult
    public func switchAccount(to account: AccountID) -> Bool {
        guard account != models.account else { return true }
        let dependencies: AccountDependencies
        do {
            dependencies = try makeDependencies(account)
        } catch {
            errorMessage = FailureMessage.make("switch to account '\(account)'", error)
            return false
        }
        models.cancelAll()
        models = AccountModels(account: account, dependencies: dependencies)
        errorMessage = nil
        return true
    }

    /// Cancels everything in flight, e.g. before the app exits.
    public func cancelAll() {
        models.cancelAll()
    }

    public func dismissError() {
        errorMessage = nil
    }
}
