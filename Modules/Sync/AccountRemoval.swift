import Domain
import Foundation
import Storage

// MARK: - AccountRemoval

/// Removing an account, the use case behind `shelf account rm`: the account file goes,
/// its local store stays. An account whose store still holds changes the server has not
/// seen (waiting, in conflict, or refused) is refused unless the reader confirms: once
/// the account is gone, nothing syncs them.
public struct AccountRemoval: Sendable {
    public let name: AccountName
    private let accounts: AccountStore

    /// The account as removed, and where its store stays.
    public struct Removed: Sendable, Equatable {
        public let name: AccountName
        public let store: String
        /// The changes not synced that the removal left in the store (confirmed).
        public let unsynced: UnsyncedCount
    }

    public init(name: AccountName, accounts: AccountStore) {
        self.name = name
        self.accounts = accounts
    }

    /// What the account's store holds that the server has not seen; none without a store.
    /// - Throws: `StorageError` when the store exists but cannot be read.
    public func unsynced() throws -> UnsyncedCount {
        let location = accounts.paths.database(name)
        guard case .file(let url) = location, FileManager.default.fileExists(atPath: url.path) else { return UnsyncedCount() }
        let store = try ShelfStore(location: location, configuration: .reader)
        return try store.read { reader in
            UnsyncedCount(pending: try reader.pendingCount(), conflicts: try reader.conflictCount(), refused: try reader.deadLetterCount())
        }
    }

    /// Removes the account file.
    /// - Parameter discardingUnsynced: the reader confirmed removing an account whose
    ///   store holds unsynced changes.
    /// - Throws: `AccountRemovalError.unsyncedChanges` (nothing removed) unless confirmed;
    ///   `AccountConfigError` for the files.
    public func remove(discardingUnsynced: Bool) throws -> Removed {
        guard accounts.exists(name) else { throw AccountConfigError.notFound(name.rawValue, known: accounts.list().map(\.rawValue)) }
        let unsynced = try unsynced()
        if !unsynced.isEmpty, !discardingUnsynced {
            throw AccountRemovalError.unsyncedChanges(account: name.rawValue, unsynced)
        }
        try accounts.remove(name)
        return Removed(name: name, store: accounts.paths.database(name).description, unsynced: unsynced)
    }
}

// MARK: - UnsyncedCount

/// Changes in a store that the server has not taken: waiting to be sent, held by a
/// conflict, or refused.
public struct UnsyncedCount: Sendable, Equatable, CustomStringConvertible {
    public var pending = 0
    public var conflicts = 0
    public var refused = 0

    public init(pending: Int = 0, conflicts: Int = 0, refused: Int = 0) {
        self.pending = pending
        self.conflicts = conflicts
        self.refused = refused
    }

    public var isEmpty: Bool { pending == 0 && conflicts == 0 && refused == 0 }

    /// "3 changes not synced yet, 1 conflict and 1 refused change".
    public var description: String {
        let parts = [
            pending > 0 ? "\(pending) change\(pending == 1 ? "" : "s") not synced yet" : nil,
            conflicts > 0 ? "\(conflicts) conflict\(conflicts == 1 ? "" : "s")" : nil,
            refused > 0 ? "\(refused) refused change\(refused == 1 ? "" : "s")" : nil,
        ].compactMap { $0 }
        guard parts.count > 1 else { return parts.first ?? "nothing unsynced" }
        return parts.dropLast().joined(separator: ", ") + " and " + (parts.last ?? "")
    }
}

// MARK: - AccountRemovalError

public enum AccountRemovalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The store holds changes the server has not taken; the account was kept.
    case unsyncedChanges(account: String, UnsyncedCount)

    public var description: String {
        switch self {
        case .unsyncedChanges(let account, let count):
            return """
                account \(account) has \(count); without the account nothing syncs them \
                (its local store is kept). Run 'shelf --account \(account) sync' first, \
                or remove it anyway with 'shelf account rm \(account) --yes'
                """
        }
    }
}
