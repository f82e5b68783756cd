import Domain
import Observation

// MARK: - AccountsViewModel

/// The reader's accounts: the list, and the intents that change it (add, use, remove,
/// a new password).
/// `shelf account add|list|use|rm` go through it, and so will the terminal interface's
/// account switcher.
@MainActor
@Observable
public final class AccountsViewModel<Service: AccountService> {
    // MARK: State

    /// The accounts as last listed.
    public var state: LoadingState<Service.Listing> { content.state }
    /// The last failure of a load or an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    /// The error behind `errorMessage`, for a front that tells failures apart by kind.
    public var failure: (any Error)? { content.failure }

    // MARK: Dependencies

    private let service: Service
    private let content = ContentController<Service.Listing>()

    public init(service: Service) {
        self.service = service
    }

    /// Lists the accounts.
    public func load() async {
        let service = self.service
        await content.load(.newestWins, action: "list the accounts") { try await service.accounts() }
    }

    // MARK: Intents

    /// Adds an account (after the server and the credentials are checked, when asked).
    /// - Parameter notify: told each warning and note as it arises.
    /// - Returns: the account as saved, or nil when it was refused (see `failure`).
    public func add(_ addition: Service.Addition, notify: @escaping @Sendable (Service.Notice) -> Void) async -> Service.Added? {
        let service = self.service
        return await content.attempt("add the account", { try await service.add(addition, notify: notify) })
    }

    /// Makes an account the current one.
    public func use(_ name: String) async -> Service.Account? {
        let service = self.service
        return await content.attempt("use the account", { try await service.use(name) })
    }

    /// Removes an account; its local store stays, so nothing unsynced is lost. An account
    /// with changes not synced yet is refused unless `discardingUnsynced` (confirmed).
    public func remove(_ name: String, discardingUnsynced: Bool = false) async -> Service.Removal? {
        let service = self.service
        return await content.attempt("remove the account", { try await service.remove(name, discardingUnsynced: discardingUnsynced) })
    }

    /// Gives an account a new password, after the server accepted it.
    /// - Parameter notify: told each warning and note as it arises.
    public func changePassword(
        _ change: Service.PasswordChange, notify: @escaping @Sendable (Service.Notice) -> Void
    ) async -> Service.PasswordChanged? {
        let service = self.service
        return await content.attempt("change the password", { try await service.changePassword(change, notify: notify) })
    }
}
