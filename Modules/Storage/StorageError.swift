import Domain
import Foundation

// MARK: - StorageError

/// Why the local store refused or failed an operation.
///
/// Every case carries what was being attempted, so a message built from it names the
/// operation and the record rather than only "disk I/O error". None of them carries
/// record contents or credentials: errors end up in logs and sync reports.
public enum StorageError: Error, Hashable, Sendable {
    /// SQLite returned an error code.
    /// - `operation`: what the store was doing, e.g. `"append outbox entry"`.
    /// - `code`: SQLite's extended result code (`SQLITE_BUSY` = 5, `SQLITE_CONSTRAINT_UNIQUE` = 2067, …).
    /// - `message`: SQLite's own message (`sqlite3_errmsg`).
    case sqlite(operation: String, code: Int32, message: String)
    /// The database was written by a newer Shelf; it is left untouched.
    case newerSchema(path: String, found: Int, supported: Int)
    /// An account name that cannot safely name a file.
    case invalidAccountName(String, reason: String)
    /// Creating the folder or file, or setting its permissions, failed.
    case fileSystem(operation: String, path: String, errno: Int32)
    /// Record bytes that are not a JSON object of the wire shape, or an id that
    /// Kinto would refuse.
    case invalidRecord(collection: CollectionName, id: String, reason: String)
    /// A local edit of a collection readers may only read (`products`).
    case readOnlyCollection(CollectionName)
    /// A transaction used after its `write`/`read` block returned.
    case transactionFinished
    /// A stored value that no longer decodes (e.g. a preference written by a newer version).
    case corruptValue(what: String, reason: String)
    /// An entry the operation needs does not exist (e.g. a dead letter already removed).
    case notFound(what: String)
}

// MARK: - Classification

extension StorageError {
    /// SQLite's extended result code, when SQLite reported the failure.
    public var sqliteCode: Int32? {
        if case .sqlite(_, let code, _) = self { return code }
        return nil
    }

    /// SQLite found the file damaged (`SQLITE_CORRUPT`) or not a database (`SQLITE_NOTADB`).
    public var isCorruption: Bool {
        guard let code = sqliteCode else { return false }
        let primary = code & 0xFF
        return primary == 11 /* SQLITE_CORRUPT */ || primary == 26 /* SQLITE_NOTADB */
    }

    /// Another connection (the sync worker, another CLI run) held the write lock for
    /// longer than the busy timeout: worth retrying later, not a damaged store.
    public var isBusy: Bool {
        guard let code = sqliteCode else { return false }
        let primary = code & 0xFF
        return primary == 5 /* SQLITE_BUSY */ || primary == 6 /* SQLITE_LOCKED */
    }
}

// MARK: - CustomStringConvertible

extension StorageError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .sqlite(let operation, let code, let message):
            return "local store: \(operation) failed: \(message) (SQLite code \(code))"
        case .newerSchema(let path, let found, let supported):
            return "local store \(path) has schema version \(found), newer than this Shelf supports (\(supported)); update Shelf — the file was left untouched"
        case .invalidAccountName(let name, let reason):
            return "invalid account name '\(name)': \(reason)"
        case .fileSystem(let operation, let path, let errno):
            return "local store: \(operation) \(path) failed: \(String(cString: strerror(errno))) (errno \(errno))"
        case .invalidRecord(let collection, let id, let reason):
            return "invalid \(collection.rawValue) record '\(id)': \(reason)"
        case .readOnlyCollection(let collection):
            return "\(collection.rawValue) is read-only: it is the shared catalog, changed only on the server"
        case .transactionFinished:
            return "local store: a transaction was used after its block returned"
        case .corruptValue(let what, let reason):
            return "local store: stored \(what) cannot be read: \(reason)"
        case .notFound(let what):
            return "local store: \(what) not found"
        }
    }
}
