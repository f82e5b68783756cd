import CSQLite
import Foundation

// MARK: - SQLiteRow

/// The current row of a stepped statement. Valid only inside the row callback of
/// `SQLiteConnection.query`: SQLite reuses the buffers on the next step.
struct SQLiteRow {
    let statement: OpaquePointer

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column)
    }

    func optionalInt64(_ column: Int32) -> Int64? {
        isNull(column) ? nil : int64(column)
    }

    func int(_ column: Int32) -> Int {
        Int(int64(column))
    }

    func bool(_ column: Int32) -> Bool {
        int64(column) != 0
    }

    func optionalBool(_ column: Int32) -> Bool? {
        isNull(column) ? nil : bool(column)
    }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? {
        isNull(column) ? nil : text(column)
    }

    func blob(_ column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    func optionalBlob(_ column: Int32) -> Data? {
        isNull(column) ? nil : blob(column)
    }

    func optionalDate(_ column: Int32) -> Date? {
        optionalInt64(column).map(Date.init(milliseconds:))
    }

    func date(_ column: Int32) -> Date {
        Date(milliseconds: int64(column))
    }
}

// MARK: - Milliseconds

extension Date {
    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    var milliseconds: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded())
    }
}
