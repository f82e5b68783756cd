import Foundation

// MARK: - SchemaMigrator

/// Brings a database file forward to `Schema.currentVersion`, one migration per
/// transaction, and refuses files from a newer Shelf.
enum SchemaMigrator {
    /// The file's `PRAGMA user_version`: 0 for a new, empty file.
    static func version(of connection: SQLiteConnection) throws(StorageError) -> Int {
        try connection.queryFirst("PRAGMA user_version", operation: "read schema version") { $0.int(0) } ?? 0
    }

    /// Runs every migration the file lacks, up to `target`.
    ///
    /// Each migration runs in its own `BEGIN IMMEDIATE` transaction together with the
    /// `user_version` bump, so a crash leaves the file at the previous version, never
    /// between two. The version is read again inside the transaction: when two
    /// processes open a new file at once, the second finds the work done.
    /// - Throws: `StorageError.newerSchema` when the file is newer than `target`.
    static func migrate(_ connection: SQLiteConnection, path: String, to target: Int = Schema.currentVersion) throws(StorageError) {
        for migration in Schema.migrations.prefix(target) {
            try connection.execute("BEGIN IMMEDIATE", operation: "begin migration to v\(migration.version)")
            do throws(StorageError) {
                let found = try version(of: connection)
                if found > target {
                    throw .newerSchema(path: path, found: found, supported: target)
                }
                if found < migration.version {
                    try migration.apply(connection)
                    // NB: PRAGMA takes no bound parameters; the value is our own constant.
                    try connection.execute("PRAGMA user_version = \(migration.version)", operation: "set schema version")
                }
                try connection.execute("COMMIT", operation: "commit migration to v\(migration.version)")
            } catch {
                try? connection.execute("ROLLBACK", operation: "roll back migration")
                connection.clearStatementCache()
                throw error
            }
        }
        connection.clearStatementCache()
    }
}
