import Domain
import Foundation
import PrivateFiles

// MARK: - StoreBackup

/// Consistent copies of a store and putting one back.
///
/// A backup is taken with `VACUUM INTO` inside one read transaction, so it is a
/// snapshot of one committed state even while a sync writes (WAL readers never block
/// the writer). A restore checks the copy first and never deletes the store it
/// replaces: that file is moved aside next to it.
public enum StoreBackup {
    // MARK: Backup

    /// Writes a consistent copy of `store` to `target`, which must not exist.
    ///
    /// The copy is written to a new private file in the target's folder, checked, and
    /// only then given the target's name (`link(2)`, which refuses an existing name):
    /// an existing file is never overwritten and a half-written copy never carries it.
    /// - Returns: the copy's quick check (always healthy: a damaged copy is removed and thrown).
    public static func backup(_ store: ShelfStore, to target: URL) throws -> IntegrityReport {
        let folder = target.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: folder.path) else {
            throw StorageError.fileSystem(operation: "back up into", path: folder.path, errno: ENOENT)
        }
        if FileManager.default.fileExists(atPath: target.path) || isSymbolicLink(target.path) {
            throw StorageError.fileSystem(operation: "back up to", path: target.path, errno: EEXIST)
        }
        let temporary = try temporaryFile(near: target)
        defer { unlink(temporary.path) }
        try store.withConnection { (connection) throws(StorageError) in
            _ = try connection.run("VACUUM INTO ?", [.text(temporary.path)], operation: "copy the store to \(target.path)")
        }
        let report = try IntegrityCheck.check(file: temporary, depth: .quick)
        guard report.isHealthy else { throw DamagedStoreError(report: report) }
        guard link(temporary.path, target.path) == 0 else {
            throw StorageError.fileSystem(operation: "name the backup", path: target.path, errno: errno)
        }
        return IntegrityReport(path: target.path, depth: report.depth, problems: [], schemaVersion: report.schemaVersion)
    }

    // MARK: Restore

    /// What a restore did.
    public struct Restored: Sendable, Equatable {
        /// The full check of the backup that was put back.
        public let report: IntegrityReport
        /// Where the replaced store now lives (nil when there was none).
        public let replacedStore: URL?
    }

    /// Puts the backup at `source` in place of the store file `store`, after a full
    /// check of the backup; the replaced store (with its `-wal` and `-shm`) is renamed
    /// to `<store>.replaced-<UTC time>` next to it. The caller must hold the account's
    /// run lock so no sync writes meanwhile.
    /// - Throws: `DamagedStoreError` for a backup that fails its check (nothing is
    ///   changed), `StorageError.newerSchema` for a backup from a newer Shelf,
    ///   `.corruptValue` for a file that is not a Shelf store.
    public static func restore(from source: URL, to store: URL, now: Date = SyncClock.live.now()) throws -> Restored {
        let report = try IntegrityCheck.check(file: source, depth: .full)
        guard report.isHealthy else { throw DamagedStoreError(report: report) }
        guard let version = report.schemaVersion, version > 0 else {
            throw StorageError.corruptValue(what: "backup \(source.path)", reason: "not a Shelf store (no schema version)")
        }
        guard version <= Schema.currentVersion else {
            throw StorageError.newerSchema(path: source.path, found: version, supported: Schema.currentVersion)
        }

        // A fresh copy beside the store, so the final step is one rename on one file system.
        try FilePermissions.prepareDirectory(store.deletingLastPathComponent(), enforce: false)
        let temporary = try temporaryFile(near: store)
        var placed = false
        defer { if !placed { unlink(temporary.path) } }
        do {
            let connection = try SQLiteConnection(path: source.path, create: false)
            connection.setBusyTimeout(milliseconds: 5_000)
            _ = try connection.run("VACUUM INTO ?", [.text(temporary.path)], operation: "copy the backup \(source.path)")
        }

        var aside: URL?
        if FileManager.default.fileExists(atPath: store.path) {
            let stamp = now.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).dateTimeSeparator(.standard))
                .replacingOccurrences(of: ":", with: "")
            let target = URL(fileURLWithPath: "\(store.path).replaced-\(stamp)")
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store.path + suffix) {
                guard rename(store.path + suffix, target.path + suffix) == 0 else {
                    throw StorageError.fileSystem(operation: "move aside", path: store.path + suffix, errno: errno)
                }
            }
            aside = target
        }
        guard rename(temporary.path, store.path) == 0 else {
            throw StorageError.fileSystem(operation: "put the backup in place of", path: store.path, errno: errno)
        }
        placed = true
        try FilePermissions.restrictDatabaseFiles(store.path)
        return Restored(report: report, replacedStore: aside)
    }

    /// A new, empty 0600 file beside `target`, to be renamed over it (`PrivateFileWriter`).
    private static func temporaryFile(near target: URL) throws(StorageError) -> URL {
        do throws(PrivateFileError) {
            return URL(fileURLWithPath: try PrivateFileWriter.createTemporary(near: target.path))
        } catch {
            throw .fileSystem(operation: "create", path: error.path, errno: error.errno)
        }
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }
}
