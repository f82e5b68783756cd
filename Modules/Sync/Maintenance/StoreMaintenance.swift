import Domain
import Foundation
import PrivateFiles
import Storage

// MARK: - StoreMaintenance

/// `shelf doctor`, `shelf backup` and `shelf restore` for one account's store: the
/// Storage primitives, with the account's run lock where a sync must not run meanwhile.
public struct StoreMaintenance: Sendable {
    public let account: AccountName
    public let paths: ShelfPaths
    /// Dates the name a restore gives the store it replaced.
    public let clock: SyncClock

    public init(account: AccountName, paths: ShelfPaths, clock: SyncClock = .live) {
        self.account = account
        self.paths = paths
        self.clock = clock
    }

    /// The account's store file.
    public var storeFile: URL { paths.storeFile(account) }

    // MARK: Doctor

    /// Runs SQLite's full check on the store and, when it passes, counts what waits in it.
    /// Never changes the store; a store that does not exist yet is reported as such.
    public func diagnose() throws -> StoreDiagnosis {
        let path = storeFile.path
        guard FileManager.default.fileExists(atPath: path) else {
            return StoreDiagnosis(path: path, exists: false, problems: [], schemaVersion: nil, sizeBytes: 0,
                                  pendingChanges: nil, conflicts: nil, deadLetters: nil, lastCheckedAt: nil)
        }
        let report = try IntegrityCheck.check(file: storeFile, depth: .full)
        var counts: (pending: Int, conflicts: Int, deadLetters: Int)?
        if report.isHealthy, let version = report.schemaVersion, version == ShelfStore.schemaVersion {
            let store = try ShelfStore(location: .file(storeFile), configuration: .reader)
            counts = try store.read { reader in
                (try reader.pendingCount(), try reader.conflictCount(), try reader.deadLetterCount())
            }
            // A pass counts as the worker's check too.
            try? PrivateFileWriter.write(Data(), to: paths.integrityMark(account).path)
        } else if !report.isHealthy {
            unlink(paths.integrityMark(account).path)
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let checked = try? FileManager.default.attributesOfItem(atPath: paths.integrityMark(account).path)[.modificationDate] as? Date
        return StoreDiagnosis(
            path: path, exists: true, problems: report.problems, schemaVersion: report.schemaVersion,
            sizeBytes: (attributes?[.size] as? NSNumber)?.intValue ?? 0,
            pendingChanges: counts?.pending, conflicts: counts?.conflicts, deadLetters: counts?.deadLetters,
            lastCheckedAt: report.isHealthy ? checked : nil)
    }

    // MARK: Backup

    /// Writes a consistent copy of the store to `target` (a new file), while other
    /// processes may read and write the store.
    public func backup(to target: URL) throws -> StoreBackupSummary {
        guard FileManager.default.fileExists(atPath: storeFile.path) else {
            throw MaintenanceError.noStore(storeFile.path)
        }
        let store = try ShelfStore(location: .file(storeFile))
        let report = try StoreBackup.backup(store, to: target)
        let size = (try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? NSNumber)?.intValue ?? 0
        return StoreBackupSummary(store: storeFile.path, file: target.path, sizeBytes: size, schemaVersion: report.schemaVersion)
    }

    // MARK: Restore

    /// Checks the backup at `source` and puts it in place of the store, keeping the
    /// replaced store beside it, under the account's lock so no sync runs meanwhile.
    /// - Throws: `MaintenanceError.syncRunning` when a sync holds the lock; what
    ///   `StoreBackup.restore` throws for a damaged or foreign backup (nothing changed).
    public func restore(from source: URL) throws -> StoreRestoreSummary {
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw MaintenanceError.noBackup(source.path)
        }
        guard let lock = try RunLock.acquire(at: paths.syncLock(account)) else {
            throw MaintenanceError.syncRunning(account: account.rawValue, pid: RunLock.holder(of: paths.syncLock(account)))
        }
        defer { lock.release() }
        let restored = try StoreBackup.restore(from: source, to: storeFile, now: clock.now())
        lock.acknowledgeUnfinishedRun()
        // The restored file just passed the full check.
        try? PrivateFileWriter.write(Data(), to: paths.integrityMark(account).path)
        return StoreRestoreSummary(store: storeFile.path, backup: source.path, replacedStore: restored.replacedStore?.path,
                                   schemaVersion: restored.report.schemaVersion)
    }
}

// MARK: - Results

/// What `shelf doctor` found.
public struct StoreDiagnosis: Sendable, Equatable {
    public let path: String
    public let exists: Bool
    /// SQLite's complaints (empty when healthy).
    public let problems: [String]
    public let schemaVersion: Int?
    public let sizeBytes: Int
    /// Changes not yet sent, conflicts and refused changes (nil when the store could not be read).
    public let pendingChanges: Int?
    public let conflicts: Int?
    public let deadLetters: Int?
    /// The last time a check passed (this one included).
    public let lastCheckedAt: Date?

    public var isHealthy: Bool { problems.isEmpty }

    /// What to do about a damaged store.
    public var advice: String? {
        guard !problems.isEmpty else { return nil }
        return "Put a backup back with 'shelf restore BACKUP' (the damaged file is kept beside it), "
            + "or move \(path) aside so the next sync downloads everything again; "
            + "changes not yet synced stay in the moved file."
    }
}

public struct StoreBackupSummary: Sendable, Equatable {
    public let store: String
    public let file: String
    public let sizeBytes: Int
    public let schemaVersion: Int?
}

public struct StoreRestoreSummary: Sendable, Equatable {
    public let store: String
    public let backup: String
    /// Where the replaced store was moved (nil when there was none).
    public let replacedStore: String?
    public let schemaVersion: Int?
}

// MARK: - MaintenanceError

public enum MaintenanceError: Error, Sendable, Equatable, CustomStringConvertible {
    case noStore(String)
    case noBackup(String)
    case syncRunning(account: String, pid: Int32?)

    public var description: String {
        switch self {
        case .noStore(let path): "there is no local store at \(path) yet"
        case .noBackup(let path): "no backup file at \(path)"
        case .syncRunning(let account, let pid):
            "a sync of account '\(account)' is running\(pid.map { " (pid \($0))" } ?? ""); try again when it has finished"
        }
    }
}
