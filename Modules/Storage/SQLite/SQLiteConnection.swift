import CSQLite
import Foundation

// MARK: - SQLiteConnection

/// One open SQLite database handle with a cache of prepared statements.
///
/// Not thread-safe on purpose: `ShelfStore` owns the only reference inside a `Mutex`,
/// so exactly one thread uses a connection at a time. The handle is opened with
/// `SQLITE_OPEN_NOMUTEX` because that serialization already happens outside SQLite.
final class SQLiteConnection {
    /// The file path, or `:memory:`.
    let path: String
    private let db: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// The statements used last, newest first, looked up before `statements`.
    ///
    /// NB: comparing a call's SQL with a few recent ones is nearly free (the same
    /// literal compares by identity, others mostly by length), while the dictionary
    /// hashes every byte of the SQL on every call — for a pulled page, once per record
    /// and statement.
    private var recent: [SQLiteStatement] = []
    private static let recentCapacity = 8

    /// Opens the database at `path`, creating it when missing unless `create` is false
    /// (checking or restoring a file must never leave an empty one behind).
    /// - Throws: `StorageError.sqlite` when SQLite cannot open the file.
    init(path: String, create: Bool = true) throws(StorageError) {
        _ = Self.processSettings
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(handle)
            throw .sqlite(operation: "open database", code: code, message: message)
        }
        sqlite3_extended_result_codes(handle, 1)
        let registered = TextContainsFunction.register(on: handle)
        guard registered == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(handle))
            sqlite3_close_v2(handle)
            throw .sqlite(operation: "add the function \(TextContainsFunction.name)", code: registered, message: message)
        }
        self.path = path
        self.db = handle
    }

    deinit {
        // Statements must be finalized before the handle closes; `close_v2` would wait
        // for them anyway, but finalizing first releases the file at once.
        recent.removeAll()
        statements.removeAll()
        sqlite3_close_v2(db)
    }

    /// Process-wide settings, applied once before SQLite initializes (the first open).
    private static let processSettings: Void = {
        _ = shelf_sqlite_disable_memory_statistics()
    }()

    // MARK: - Running SQL

    /// Runs SQL without parameters, possibly several statements (schema, pragmas).
    /// Never pass user data here: it has no way to bind it.
    func execute(_ sql: String, operation: @autoclosure () -> String) throws(StorageError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        guard code == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errorMessage)
            throw .sqlite(operation: operation(), code: code, message: message)
        }
    }

    /// Runs one statement with bound parameters and no result rows.
    /// - Returns: the number of rows it inserted, updated or deleted.
    @discardableResult
    func run(_ sql: String, _ parameters: [SQLiteValue] = [], operation: @autoclosure () -> String) throws(StorageError) -> Int {
        try withStatement(sql, parameters, operation: operation) { (statement) throws(StorageError) in
            while try step(statement, operation: operation) {}
        }
        return Int(sqlite3_changes64(db))
    }

    /// Runs one query and maps each result row.
    func query<Row>(
        _ sql: String, _ parameters: [SQLiteValue] = [], operation: @autoclosure () -> String,
        row map: (SQLiteRow) throws(StorageError) -> Row
    ) throws(StorageError) -> [Row] {
        try withStatement(sql, parameters, operation: operation) { (statement) throws(StorageError) -> [Row] in
            var rows: [Row] = []
            while try step(statement, operation: operation) {
                rows.append(try map(SQLiteRow(statement: statement.handle)))
            }
            return rows
        }
    }

    /// Runs one query and maps its first row, if any.
    func queryFirst<Row>(
        _ sql: String, _ parameters: [SQLiteValue] = [], operation: @autoclosure () -> String,
        row map: (SQLiteRow) throws(StorageError) -> Row
    ) throws(StorageError) -> Row? {
        try withStatement(sql, parameters, operation: operation) { (statement) throws(StorageError) -> Row? in
            guard try step(statement, operation: operation) else { return nil }
            return try map(SQLiteRow(statement: statement.handle))
        }
    }

    /// The rowid of the last successful insert on this connection.
    var lastInsertRowID: Int64 {
        sqlite3_last_insert_rowid(db)
    }

    /// Whether the connection is outside any transaction (autocommit mode).
    var isAutocommit: Bool {
        sqlite3_get_autocommit(db) != 0
    }

    // MARK: - Statements

    private func withStatement<Result>(
        _ sql: String, _ parameters: [SQLiteValue], operation: () -> String,
        _ body: (SQLiteStatement) throws(StorageError) -> Result
    ) throws(StorageError) -> Result {
        let statement = try prepared(sql, operation: operation)
        defer { statement.reset() }
        let code = statement.bind(parameters)
        guard code == SQLITE_OK else {
            throw .sqlite(operation: operation(), code: code, message: lastErrorMessage)
        }
        return try body(statement)
    }

    /// The cached statement for `sql`, prepared on first use.
    private func prepared(_ sql: String, operation: () -> String) throws(StorageError) -> SQLiteStatement {
        if let index = recent.firstIndex(where: { $0.sql == sql }) {
            let statement = recent[index]
            if index > 0 {
                recent.remove(at: index)
                recent.insert(statement, at: 0)
            }
            return statement
        }
        let statement: SQLiteStatement
        if let cached = statements[sql] {
            statement = cached
        } else {
            var handle: OpaquePointer?
            let code = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
            guard code == SQLITE_OK, let handle else {
                throw .sqlite(operation: operation(), code: code, message: lastErrorMessage)
            }
            statement = SQLiteStatement(handle: handle, sql: sql)
            statements[sql] = statement
        }
        if recent.count == Self.recentCapacity { recent.removeLast() }
        recent.insert(statement, at: 0)
        return statement
    }

    /// Steps once. - Returns: true when a row is available, false when done.
    private func step(_ statement: SQLiteStatement, operation: () -> String) throws(StorageError) -> Bool {
        switch sqlite3_step(statement.handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw .sqlite(operation: operation(), code: code, message: lastErrorMessage)
        }
    }

    private var lastErrorMessage: String {
        String(cString: sqlite3_errmsg(db))
    }

    // MARK: - Settings

    /// Sets how long a write waits for another connection's lock before `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(db, milliseconds)
    }

    /// Drops every cached statement, e.g. after a migration changed the schema.
    func clearStatementCache() {
        recent.removeAll()
        statements.removeAll()
    }
}
