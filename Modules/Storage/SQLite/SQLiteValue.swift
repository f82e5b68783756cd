import Foundation

// MARK: - SQLiteValue

/// A value bound to a statement parameter. Every piece of data that reaches SQL goes
/// through one of these: the store never splices values into SQL text.
enum SQLiteValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

// MARK: - Optionals

extension SQLiteValue {
    static func integer(_ value: Int64?) -> SQLiteValue {
        value.map { .integer($0) } ?? .null
    }

    static func text(_ value: String?) -> SQLiteValue {
        value.map { .text($0) } ?? .null
    }

    static func blob(_ value: Data?) -> SQLiteValue {
        value.map { .blob($0) } ?? .null
    }

    static func bool(_ value: Bool?) -> SQLiteValue {
        value.map { .integer($0 ? 1 : 0) } ?? .null
    }

    /// Dates are stored as milliseconds since 1970, the unit Kinto uses for timestamps.
    static func date(_ value: Date?) -> SQLiteValue {
        value.map { .integer($0.milliseconds) } ?? .null
    }
}
