import CSQLite
import Domain
import Foundation

// MARK: - IntegrityCheck

/// SQLite's structural checks over a store file, opened on its own connection so a
/// file too damaged to open as a `ShelfStore` can still be examined.
public enum IntegrityCheck {
    /// Problems listed at most: enough to tell damage from a one-off, bounded for logs.
    public static let problemLimit = 20

    /// Checks the database file at `url` without changing it.
    ///
    /// A file SQLite cannot read as a database at all (overwritten header, not a
    /// database) is reported as damaged, not thrown: damage is the answer asked for.
    /// - Throws: `StorageError.fileSystem` when there is no file to check, or
    ///   `.sqlite` when another connection keeps it busy beyond the busy timeout.
    public static func check(file url: URL, depth: IntegrityReport.Depth) throws(StorageError) -> IntegrityReport {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw .fileSystem(operation: "check", path: path, errno: ENOENT)
        }
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, create: false)
        } catch {
            return IntegrityReport(path: path, depth: depth, problems: ["cannot open: \(error)"], schemaVersion: nil)
        }
        connection.setBusyTimeout(milliseconds: 5_000)
        return try check(connection, path: path, depth: depth)
    }

    /// Runs the check on an open connection (the store's own, between transactions).
    static func check(_ connection: SQLiteConnection, path: String, depth: IntegrityReport.Depth) throws(StorageError) -> IntegrityReport {
        let version: Int?
        do {
            version = try SchemaMigrator.version(of: connection)
        } catch let error where error.isBusy {
            throw error
        } catch {
            return IntegrityReport(path: path, depth: depth, problems: ["\(error)"], schemaVersion: nil)
        }
        let pragma = depth == .quick ? "quick_check" : "integrity_check"
        let lines: [String]
        do {
            // NB: PRAGMA takes no bound parameters; the limit is our own constant.
            lines = try connection.query("PRAGMA \(pragma)(\(problemLimit))", operation: "check the store (\(pragma))") { row in
                row.text(0)
            }
        } catch let error where error.isBusy {
            throw error
        } catch {
            // SQLITE_CORRUPT / SQLITE_NOTADB before the check could list anything.
            return IntegrityReport(path: path, depth: depth, problems: ["\(error)"], schemaVersion: version)
        }
        var problems = lines == ["ok"] ? [] : Array(lines.prefix(problemLimit))
        if problems.count < problemLimit, let version, version >= 1 {
            problems += try invalidRecordJSON(connection, limit: problemLimit - problems.count)
        }
        return IntegrityReport(path: path, depth: depth, problems: problems, schemaVersion: version)
    }

    /// Records whose stored JSON is not valid JSON, at most `limit`.
    ///
    /// Shelf validates every record before it writes one; until schema v7 a CHECK on
    /// the column said so again on each write, and SQLite's checks above verified it.
    /// Without the constraint, this look finds the same damage (bytes changed by
    /// another tool or a failing disk) at both depths, as the constraint's check did.
    private static func invalidRecordJSON(_ connection: SQLiteConnection, limit: Int) throws(StorageError) -> [String] {
        do {
            // NB: the column holds the record's UTF-8 text as a BLOB; it is read as text,
            // which is what `json_valid` judges in every SQLite version.
            return try connection.query(
                "SELECT collection, id FROM records WHERE NOT json_valid(CAST(json AS TEXT)) LIMIT ?",
                [.integer(Int64(limit))], operation: "check the records' JSON"
            ) { row in
                "record \(TerminalEscaping.escaped(row.text(0)))/\(TerminalEscaping.escaped(row.text(1))): its stored JSON is not valid"
            }
        } catch let error where error.isBusy {
            throw error
        } catch {
            return ["\(error)"]
        }
    }
}

// MARK: - Checking an open store

extension ShelfStore {
    /// The schema version this Shelf writes; a file at another version is migrated
    /// (older) or refused (newer) when opened as a store.
    public static var schemaVersion: Int { Schema.currentVersion }

    /// Runs SQLite's check on this store's connection (waiting for any block in progress).
    public func checkIntegrity(_ depth: IntegrityReport.Depth) throws(StorageError) -> IntegrityReport {
        try withConnection { (connection) throws(StorageError) in
            try IntegrityCheck.check(connection, path: location.sqlitePath, depth: depth)
        }
    }
}
