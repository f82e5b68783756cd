import Domain
import Foundation
import Repositories
import Screens
import Services
import Storage
import Sync

// MARK: - One account's ports
//
// What the view models of decisions, imports and sync runs are built on, wired to one
// account's store, repositories and engine: one call each, no rule of their own.

// MARK: - StoreDecisions

/// Sync's decisions over one account's store (`ConflictResolver`, `OperationHistory`), as
/// the ports the decision view models are built on: wiring, one call each.
struct StoreDecisions: ConflictService, FailedChangeService, PendingChangeService {
    typealias Conflict = ConflictSummary
    typealias Detail = ConflictDetail
    typealias Decisions = ConflictDecisions
    typealias Resolution = ConflictResolver.Resolution
    typealias FailedChange = Sync.FailedChange
    typealias Pending = PendingWork
    typealias Entry = HistoryEntry
    typealias Step = UndoPlan
    typealias Done = UndoOutcome

    let store: ShelfStore

    private var resolver: ConflictResolver { ConflictResolver(store: store) }

    // MARK: ConflictService

    func conflicts() async throws -> [ConflictSummary] { try resolver.conflicts() }

    func locateConflict(_ reference: String, in collection: CollectionName?) async throws -> (collection: CollectionName, id: String) {
        try resolver.locate(reference, in: collection)
    }

    func conflictDetail(_ collection: CollectionName, id: String) async throws -> ConflictDetail {
        try resolver.detail(collection, id: id)
    }

    func resolve(_ collection: CollectionName, id: String, _ decisions: ConflictDecisions) async throws -> ConflictResolver.Resolution {
        try resolver.resolve(collection, id: id, decisions)
    }

    // MARK: FailedChangeService

    func failedChanges() async throws -> [Sync.FailedChange] { try resolver.failedChanges() }
    func retry(failedChange id: Int64) async throws { try resolver.retry(deadLetter: id) }
    func discard(failedChange id: Int64) async throws { try resolver.discard(deadLetter: id) }

    // MARK: PendingChangeService

    private var operations: OperationHistory { OperationHistory(store: store) }

    func pendingChanges() async throws -> PendingWork { try operations.pending() }
    func history() async throws -> [HistoryEntry] { try operations.entries() }
    func planUndo(_ target: UndoTarget) async throws -> UndoPlan { try operations.planUndo(target) }
    func planRedo() async throws -> UndoPlan { try operations.planRedo() }
    func carryOut(_ plan: UndoPlan) async throws -> UndoOutcome { try operations.carryOut(plan) }
}

// MARK: - AccountImport

/// Repositories' import into one account's store, as the port `ImportViewModel` is
/// built on; after a real import the repositories read the store again.
struct AccountImport: LibraryImporting {
    let store: ShelfStore
    let repositories: AccountRepositories
    /// The account's key file: an encrypted account names imported records by keyed ids.
    let keyFile: URL?

    func importLibrary(
        _ plan: ImportPlan, file: String, dryRun: Bool, progress: @escaping @Sendable (Int, Int) -> Void
    ) async throws -> ImportReport {
        var plan = plan
        // NB: a device without the key is refused as every other write is (`refuseEditsWithoutTheKey`).
        try store.checkEditsAllowed()
        if let keyFile, let keyed = try AccountEncryption.importIDs(store: store, keyFile: keyFile) {
            plan = plan.keyingIDs(keyed)
        }
        let report = try LibraryImport.apply(plan, to: store, file: file, dryRun: dryRun, progress: progress)
        if !dryRun { await repositories.invalidateAll() }
        return report
    }
}

// MARK: - AccountSyncRun

/// Sync's run of one account under its lock (`AccountSync.runLocked`), as the port
/// `SyncRunViewModel` is built on.
struct AccountSyncRun: SyncRunning {
    let sync: AccountSync

    func runNow(onEvent: @escaping @Sendable (SyncEvent) -> Void) async -> RunReport {
        await sync.runLocked(onEvent: onEvent)
    }
}

// MARK: - AccountFiles

/// The account files under `$XDG_CONFIG_HOME/shelf` (Storage's `AccountStore`) and Sync's
/// `AccountAddition`, as the port `AccountsViewModel` is built on.
struct AccountFiles: AccountService {
    /// An addition whose name and server were checked (`AccountAddition.init`), with the
    /// person's inputs.
    struct Addition: Sendable {
        let addition: AccountAddition
        let user: String
        let password: AccountAddition.Password
        let caFile: String?
        let verification: AccountAddition.Verification
        /// The server's time to answer the check (`SHELF_STALL_SECONDS`, `LimitOverrides`).
        let timeouts: Timeouts
    }

    /// The accounts, and the account files that could not be read.
    struct Listing: Sendable {
        let accounts: [AccountsScreen.Entry]
        let problems: [String]
    }

    /// A new password for a loaded account (`AccountPasswordChange.init`), with the
    /// person's inputs.
    struct PasswordChange: Sendable {
        let change: AccountPasswordChange
        let password: AccountAddition.Password
        let verifies: Bool
        let timeouts: Timeouts
    }

    let store: AccountStore

    func accounts() async throws -> Listing {
        let current = store.currentAccount()
        var entries: [AccountsScreen.Entry] = []
        var problems: [String] = []
        for name in store.list() {
            do {
                let config = try store.load(name)
                entries.append(.init(name: name.rawValue, user: config.user, server: config.server, isCurrent: name == current))
            } catch {
                problems.append("account \(name): \(error)")
            }
        }
        return Listing(accounts: entries, problems: problems)
    }

    func add(_ request: Addition, notify: @escaping @Sendable (AccountAddition.Notice) -> Void) async throws -> AccountAddition.Added {
        try await request.addition.add(
            user: request.user, password: request.password, caFile: request.caFile, verification: request.verification,
            timeouts: request.timeouts, notify: notify)
    }

    func use(_ name: String) async throws -> AccountsScreen.Entry {
        let name = try AccountName.checked(name)
        let config = try store.load(name)
        try store.setCurrentAccount(name)
        return .init(name: name.rawValue, user: config.user, server: config.server, isCurrent: true)
    }

    func remove(_ name: String, discardingUnsynced: Bool) async throws -> AccountRemoval.Removed {
        try AccountRemoval(name: try AccountName.checked(name), accounts: store).remove(discardingUnsynced: discardingUnsynced)
    }

    func changePassword(
        _ request: PasswordChange, notify: @escaping @Sendable (AccountAddition.Notice) -> Void
    ) async throws -> AccountPasswordChange.Changed {
        try await request.change.change(
            to: request.password, verifies: request.verifies, timeouts: request.timeouts, notify: notify)
    }
}

// MARK: - StoreCare

/// Sync's `StoreMaintenance` of one store, as the port `StoreCareViewModel` is built on.
struct StoreCare: StoreCaring {
    let maintenance: StoreMaintenance

    func diagnose() async throws -> StoreDiagnosis { try maintenance.diagnose() }
    func backup(to path: String) async throws -> StoreBackupSummary { try maintenance.backup(to: URL(fileURLWithPath: path)) }
    func restore(from path: String) async throws -> StoreRestoreSummary { try maintenance.restore(from: URL(fileURLWithPath: path)) }
}
