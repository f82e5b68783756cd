import Domain
import Foundation

// MARK: - LocalStoreAdoption

/// Carries work done before any account existed into the first account that can sync it.
///
/// Without an account, `shelf` works on the local-only store (`local.sqlite`). When an
/// account is added and has no store of its own yet, that store becomes the account's:
/// its records and queued changes are copied whole (`VACUUM INTO`, one consistent
/// snapshot), then the local-only files are removed, so the next sync pushes what the
/// reader did offline instead of leaving it stranded. An account that already has a
/// store is never overwritten.
public enum LocalStoreAdoption {
    /// What moved, for the confirmation line.
    public struct Adopted: Equatable, Sendable {
        public let records: Int
        public let pendingChanges: Int

        public init(records: Int, pendingChanges: Int) {
            self.records = records
            self.pendingChanges = pendingChanges
        }
    }

    /// - Returns: what moved, or nil when there was nothing to carry (no local-only store,
    ///   an empty one, or an account that already has a store).
    public static func adopt(into account: AccountName, paths: ShelfPaths) throws(StorageError) -> Adopted? {
        guard case .file(let source) = paths.database(.localOnly),
              case .file(let target) = paths.database(account),
              account != .localOnly,
              FileManager.default.fileExists(atPath: source.path),
              !FileManager.default.fileExists(atPath: target.path)
        else { return nil }

        let adopted: Adopted
        do {
            let store = try ShelfStore(location: .file(source))
            let counts = try store.read { reader in
                (try CollectionName.allCases.reduce(0) { $0 + (try reader.count(RecordQuery($1))) }, try reader.pendingCount())
            }
            guard counts.0 > 0 || counts.1 > 0 else { return nil }
            try store.copy(to: target)
            adopted = Adopted(records: counts.0, pendingChanges: counts.1)
        } catch let error as StorageError {
            throw error
        } catch {
            throw .fileSystem(operation: "adopt the local-only store", path: source.path, errno: EIO)
        }
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: source.path + suffix)
        }
        return adopted
    }
}
