import CSQLite
import Foundation

// MARK: - SQLiteStatement

/// A prepared statement owned by one connection's cache. It is reset and its bindings
/// cleared after every use, so the next user finds it fresh.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds `values` to parameters 1...n in order.
    /// - Returns: SQLite's result code of the first failing bind, or `SQLITE_OK`.
    func bind(_ values: [SQLiteValue]) -> Int32 {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null:
                code = sqlite3_bind_null(handle, index)
            case .integer(let number):
                code = sqlite3_bind_int64(handle, index, number)
            case .real(let number):
                code = sqlite3_bind_double(handle, index, number)
            case .text(let string):
                code = Self.bindText(string, to: handle, at: index)
            case .blob(let data):
                code = data.withUnsafeBytes { buffer -> Int32 in
                    // NB: an empty buffer has no base address, and binding a null pointer
                    // would store NULL instead of an empty blob.
                    guard let base = buffer.baseAddress, buffer.count > 0 else {
                        return sqlite3_bind_zeroblob(handle, index, 0)
                    }
                    return sqlite3_bind_blob64(handle, index, base, UInt64(buffer.count), shelf_sqlite_transient())
                }
            }
            guard code == SQLITE_OK else { return code }
        }
        return SQLITE_OK
    }

    /// Makes the statement ready for its next use and drops references to bound data.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    private static func bindText(_ string: String, to handle: OpaquePointer, at index: Int32) -> Int32 {
        var string = string
        return string.withUTF8 { buffer -> Int32 in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                // NB: as for blobs, a null pointer would bind NULL rather than "".
                return sqlite3_bind_text(handle, index, "", 0, shelf_sqlite_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
                sqlite3_bind_text64(handle, index, chars, UInt64(buffer.count), shelf_sqlite_transient(), UInt8(SQLITE_UTF8))
            }
        }
    }
}
