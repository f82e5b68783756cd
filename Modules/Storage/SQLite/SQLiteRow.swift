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

    /// Milliseconds since 1970, saturating: a date too far out for an `Int64` (one
    /// built from a hostile header, say) is stored as the nearest representable value
    /// instead of trapping.
    var milliseconds: Int64 {
        let value = (timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return value > 0 ? .max : .min }
        // NB: Int64.max is not exactly representable as a Double; anything at or past
        // 2^63 saturates, anything else converts exactly.
        if value >= 9_223_372_036_854_775_808.0 { return .max }
        if value <= -9_223_372_036_854_775_808.0 { return .min }
        return Int64(value)
    }
}
